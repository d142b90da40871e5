import type { TokenCache } from "../adapters/identity/tokenCache.js";
import { tokenCredential } from "../adapters/identity/tokenCredential.js";
import { armLookups } from "../adapters/preflight/armLookups.js";
import { challengeProbe } from "../adapters/preflight/challengeProbe.js";
import { dnsLookups } from "../adapters/preflight/dnsLookups.js";
import type { PreflightProbes } from "../core/ports/preflightProbes.js";
import type { PreflightSettings } from "../core/preflight/preflightSettings.js";

/**
 * What preflight reads, for one account: DNS through CERTSCHED_DNS_SERVERS, Azure Resource
 * Manager at CERTSCHED_ARM_URL with the account's management token (certsched's token cache as
 * a TokenCredential: no second login), the HTTP challenge as CERTSCHED_VERIFY_CONNECT_TO says.
 * Loaded by accountServices.ts on first use only, and the ARM SDKs only on the first ARM call:
 * they stay out of every other function's cold start.
 */
export function buildPreflightProbes(
  settings: PreflightSettings,
  tokens: TokenCache,
  managementResource: string,
  armCa?: string,
): PreflightProbes {
  return {
    dns: dnsLookups({ servers: settings.dnsServers, timeoutMs: settings.timeoutMs }),
    arm: armLookups({
      armUrl: settings.armUrl,
      credential: tokenCredential(tokens, managementResource),
      resource: managementResource,
      timeoutMs: settings.timeoutMs,
      ...(armCa ? { tlsOptions: { ca: armCa } } : {}),
    }),
    challenge: challengeProbe({ connectTo: settings.connectTo, timeoutMs: settings.timeoutMs }),
  };
}
