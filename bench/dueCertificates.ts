import type { SeedCertificate } from "../sim/index.js";

const DAY_MS = 86_400_000;

/**
 * `count` certificates that are all due (expiring in 1 to 19 days, inside the list's 20-day
 * window), alternating the two targets so both request shapes are exercised.
 */
export function dueCertificates(count: number, now: Date): SeedCertificate[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `bench-${String(i + 1).padStart(5, "0")}`;
    const expiryDate = new Date(now.getTime() + (1 + (i % 19)) * DAY_MS);
    return i % 2 === 0
      ? {
          certificateName: name,
          rootDomain: `${name}.example.com`,
          target: "Cloud App Service",
          challengeType: "http",
          expiryDate,
          cloudSubscriptionId: "00000000-0000-4000-8000-00000000be0c",
        }
      : {
          certificateName: name,
          rootDomain: `${name}.example.com`,
          target: "Cloud Key Vault + DNS",
          challengeType: "dns",
          expiryDate,
          keyVaultName: "kv-bench",
          dnsZoneResourceGroup: "rg-dns",
          cloudSubscriptionId: "00000000-0000-4000-8000-00000000be0c",
        };
  });
}
