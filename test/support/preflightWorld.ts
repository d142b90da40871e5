import { inject } from "vitest";
import {
  type ArmSimulator,
  type SeedCertificate,
  type SimDnsServer,
  type Simulator,
  sandboxSettings,
  startArm,
  startDnsServer,
  startSimulator,
} from "../../sim/index.js";
import { inDays } from "./cli.js";

/**
 * Everything preflight talks to, on loopback, for end-to-end tests: the contract
 * simulator (service, identity provider, hosting side with its HTTP challenge listener), its DNS
 * server and its ARM over the loopback certificate every worker trusts (globalSetup.ts). By
 * default every certificate is ready: its zone exists in ARM and is delegated, its App Service
 * domain is bound to a site and answers the challenge, no CAA record forbids anything. A test
 * then breaks one thing and looks.
 */

export const WORLD_SUBSCRIPTION = "00000000-0000-4000-8000-0000000a11ce";
export const WORLD_NAME_SERVERS = ["ns1-01.azure-dns.com.", "ns2-01.azure-dns.net."];

export interface PreflightWorld {
  readonly sim: Simulator;
  readonly dns: SimDnsServer;
  readonly arm: ArmSimulator;
  /**
   * The settings of a single-account certsched for this world (service, identity, connect-to,
   * CERTSCHED_ARM_URL, CERTSCHED_DNS_SERVERS, a short CERTSCHED_PREFLIGHT_TIMEOUT) and the
   * NODE_EXTRA_CA_CERTS a child process needs to trust the ARM.
   */
  readonly env: Record<string, string>;
  /** Every value that must never be printed: credentials and every token the sim issued. */
  secrets(): string[];
  close(): Promise<void>;
}

/** An App Service certificate on the http challenge, bound to the site `{name}-app` by default. */
export function appServiceSeed(name: string, domain: string, days = 10): SeedCertificate {
  return {
    certificateName: name,
    rootDomain: domain,
    target: "Cloud App Service",
    challengeType: "http",
    expiryDate: inDays(days),
    cloudSubscriptionId: WORLD_SUBSCRIPTION,
  };
}

/** A Key Vault certificate on the dns challenge, its zone in `rg-dns` by default. */
export function keyVaultSeed(
  name: string,
  domain: string,
  days = 10,
  resourceGroup = "rg-dns",
): SeedCertificate {
  return {
    certificateName: name,
    rootDomain: domain,
    target: "Cloud Key Vault + DNS",
    challengeType: "dns",
    expiryDate: inDays(days),
    cloudSubscriptionId: WORLD_SUBSCRIPTION,
    dnsZoneResourceGroup: resourceGroup,
    keyVaultName: "kv-world",
  };
}

/** The zone a domain lives in: its last two labels (`a.b.contoso.com` → `contoso.com`). */
export function zoneOf(domain: string): string {
  return domain.replace(/^\*\./, "").split(".").slice(-2).join(".");
}

export async function startPreflightWorld(
  certificates: readonly SeedCertificate[],
): Promise<PreflightWorld> {
  const tls = inject("loopbackTls");
  const sim = await startSimulator({ hosting: {}, certificates: [...certificates] });
  const dns = await startDnsServer();
  const arm = await startArm({ ...tls, acceptToken: (t) => sim.issuedTokens().includes(t) });
  for (const c of certificates) {
    const domain = c.rootDomain ?? "";
    if (c.dnsZoneResourceGroup) {
      const zone = zoneOf(domain);
      arm.addZone({
        subscriptionId: WORLD_SUBSCRIPTION,
        resourceGroup: c.dnsZoneResourceGroup,
        name: zone,
        nameServers: WORLD_NAME_SERVERS,
      });
      dns.set(
        zone,
        WORLD_NAME_SERVERS.map((host) => ({ type: "NS" as const, host })),
      );
    }
    if ((c.target ?? "Cloud App Service") === "Cloud App Service") {
      arm.addSite({
        subscriptionId: WORLD_SUBSCRIPTION,
        resourceGroup: "rg-web",
        name: `${c.certificateName}-app`,
        hostNames: [domain],
      });
    }
  }
  const env: Record<string, string> = {
    ...sandboxSettings(sim),
    CERTSCHED_ARM_URL: arm.url,
    CERTSCHED_DNS_SERVERS: dns.address,
    CERTSCHED_PREFLIGHT_TIMEOUT: "1s",
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
  };
  return {
    sim,
    dns,
    arm,
    env,
    secrets: () => [sim.options.apiKey, sim.options.clientSecret, ...sim.issuedTokens()],
    close: async () => {
      await arm.close();
      await dns.stop();
      await sim.close();
    },
  };
}
