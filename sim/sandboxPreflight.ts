import { DAY_MS } from "../shared/lib/time.js";
import { type ArmSimulator, startArm } from "./arm/armServer.js";
import type { SeedCertificate } from "./certificate.js";
import { type SimDnsServer, startDnsServer } from "./dns/dnsServer.js";
import { HostingCa } from "./hosting/hostingCa.js";
import { SAMPLE_CAA_FORBIDDEN } from "./sampleCertificates.js";
import type { Simulator } from "./simulator.js";

/**
 * What the sandbox's preflight talks to: one ARM over TLS (its certificate from a
 * throwaway CA the sandbox's process trusts through `caPem`) and one DNS server, shared by every
 * sandbox account. Every sample certificate is set up to renew, but two staged on purpose: the
 * refused one names a resource group without its DNS zone (dns-zone-missing), and
 * SAMPLE_CAA_FORBIDDEN's domain has a CAA record that allows another CA only (caa-forbids).
 */
export interface SandboxPreflight {
  readonly arm: ArmSimulator;
  readonly dns: SimDnsServer;
  /** The CA of the ARM's certificate: what the sandbox's process trusts for CERTSCHED_ARM_URL. */
  readonly caPem: string;
  /** CERTSCHED_ARM_URL, CERTSCHED_DNS_SERVERS and a short CERTSCHED_PREFLIGHT_TIMEOUT. */
  readonly settings: Record<string, string>;
  close(): Promise<void>;
}

/** Azure DNS's name servers, as a zone in ARM lists them and the registrar delegates to them. */
export const SANDBOX_NAME_SERVERS = ["ns1-07.azure-dns.com.", "ns2-07.azure-dns.net."];

/** The CA the staged CAA record allows instead of the service's. */
export const SANDBOX_OTHER_CA = "digicert.com";

const zoneOf = (domain: string) => domain.replace(/^\*\./, "").split(".").slice(-2).join(".");

/** Starts the sandbox's ARM and DNS server for these accounts' simulators and their seeds. */
export async function startSandboxPreflight(
  accounts: readonly { readonly sim: Simulator; readonly seeds: readonly SeedCertificate[] }[],
): Promise<SandboxPreflight> {
  const ca = await HostingCa.create(new Date());
  const now = Date.now();
  const leaf = ca.issue(["127.0.0.1", "localhost"], {
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 30 * DAY_MS),
  });
  const dns = await startDnsServer();
  let arm: ArmSimulator;
  try {
    arm = await startArm({
      ...leaf,
      // Only tokens one of the sandbox's identity providers issued: as ARM trusts only Entra's.
      acceptToken: (token) => accounts.some((a) => a.sim.issuedTokens().includes(token)),
    });
  } catch (error) {
    await dns.stop();
    throw error;
  }
  for (const { seeds } of accounts) {
    for (const seed of seeds) setUp(arm, dns, seed);
  }
  return {
    arm,
    dns,
    caPem: ca.certPem,
    settings: {
      CERTSCHED_ARM_URL: arm.url,
      CERTSCHED_DNS_SERVERS: dns.address,
      CERTSCHED_PREFLIGHT_TIMEOUT: "2s",
    },
    close: async () => {
      await arm.close();
      await dns.stop();
    },
  };
}

/** One sample certificate's zone, app and DNS, as a customer would have set them up. */
function setUp(arm: ArmSimulator, dns: SimDnsServer, seed: SeedCertificate): void {
  const domain = seed.rootDomain;
  const subscriptionId = seed.cloudSubscriptionId;
  if (!domain || !subscriptionId) return;
  const zone = zoneOf(domain);
  // The refused certificate's resource group holds no zone: its renewal is refused for that.
  if (seed.dnsZoneResourceGroup && seed.refuseRenewal === undefined) {
    arm.addZone({
      subscriptionId,
      resourceGroup: seed.dnsZoneResourceGroup,
      name: zone,
      nameServers: SANDBOX_NAME_SERVERS,
    });
  }
  dns.set(
    zone,
    SANDBOX_NAME_SERVERS.map((host) => ({ type: "NS" as const, host })),
  );
  if ((seed.target ?? "Cloud App Service") === "Cloud App Service") {
    arm.addSite({
      subscriptionId,
      resourceGroup: "rg-web",
      name: `${seed.certificateName}-app`,
      hostNames: [domain],
    });
  }
  if (seed.certificateName === SAMPLE_CAA_FORBIDDEN) {
    dns.set(domain, [{ type: "CAA", flags: 0, tag: "issue", value: SANDBOX_OTHER_CA }]);
  }
}
