import type { TokenCache } from "../adapters/identity/tokenCache.js";
import type { PreflightProbes } from "../core/ports/preflightProbes.js";
import type { PreflightSettings } from "../core/preflight/preflightSettings.js";
import { ConfigError } from "../lib/errors.js";

/**
 * What preflight reads, for one account: DNS through CERTSCHED_DNS_SERVERS, Azure Resource
 * Manager at CERTSCHED_ARM_URL with the account's management token (certsched's token cache as a
 * TokenCredential), the HTTP challenge as CERTSCHED_VERIFY_CONNECT_TO says. Loaded by
 * accountServices.ts on first use only: its SDKs stay out of every other function's cold start.
 */
export async function buildPreflightProbes(
  _settings: PreflightSettings,
  _tokens: TokenCache,
  _managementResource: string,
): Promise<PreflightProbes> {
  throw new ConfigError([
    { name: "CERTSCHED_ARM_URL", message: "preflight adapters are being wired" },
  ]);
}
