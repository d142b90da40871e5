import { dnsLookups } from "../../shared/adapters/preflight/dnsLookups.js";
import type { PreflightSettings } from "../../shared/core/preflight/preflightSettings.js";
import type {
  CheckContext,
  CheckSubject,
} from "../../shared/usecases/preflightChecks/checkTypes.js";
import { type SimDnsRecord, type SimDnsServer, startDnsServer } from "../../sim/index.js";

/**
 * A check's context whose DNS is the real adapter asking the simulator's DNS server over
 * loopback; ARM and the challenge probe refuse to be used (the DNS checks never call them).
 */
export function dnsContext(
  server: SimDnsServer,
  options: { timeoutMs?: number; caIdentifiers?: readonly string[]; signal?: AbortSignal } = {},
): CheckContext {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const settings: PreflightSettings = {
    armUrl: "https://management.invalid",
    dnsServers: [{ host: server.host, port: server.port }],
    caIdentifiers: options.caIdentifiers ?? ["letsencrypt.org"],
    days: 30,
    timeoutMs,
    connectTo: [],
  };
  const unused = () => Promise.reject(new Error("a DNS check called ARM or the challenge probe"));
  return {
    settings,
    signal: options.signal,
    probes: {
      dns: dnsLookups({ servers: settings.dnsServers, timeoutMs }),
      arm: { dnsZone: unused, hostNameBindings: unused, sites: unused },
      challenge: { reach: unused },
    },
  };
}

export function subjectFor(rootDomain: string): CheckSubject {
  return { certificateName: "cert-1", rootDomain, challengeType: "dns" };
}

/** Starts a DNS server with `records`; the caller stops it. */
export function dnsServerWith(records: Record<string, SimDnsRecord[]>): Promise<SimDnsServer> {
  return startDnsServer({ records });
}
