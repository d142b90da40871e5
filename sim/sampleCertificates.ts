import { DAY_MS } from "../shared/lib/time.js";
import type { SeedCertificate } from "./certificate.js";

const CLOUD_SUBSCRIPTION = "00000000-0000-4000-8000-00000000c0de";

/** The refusal text of the sample certificate whose renewal always fails. */
export const SAMPLE_REFUSAL =
  "Renewal refused: DNS zone 'contoso-dns' not found in resource group 'rg-dns'";

/** The resource group the refused sample names for its DNS zone, which holds no zone. */
export const SAMPLE_MISSING_ZONE_GROUP = "rg-dns-intranet";

/**
 * The App Service sample certificate whose domain has a CAA record that allows another
 * certificate authority only: preflight's staged `caa-forbids`.
 */
export const SAMPLE_CAA_FORBIDDEN = "staging-contoso-com";

/**
 * The App Service sample certificate whose renewal the sandbox's hosting side never installs
 * (the keep-old-certificate fault): its verification is `not-landed` on purpose.
 */
export const SAMPLE_NOT_LANDED = "shop-contoso-com";

/**
 * A dozen certificates for the operator sandbox: both targets, both challenge types, seven due
 * within the 20-day window (one expired yesterday, one whose renewal is refused) and five not.
 * Each is for its own host name (its rootDomain), www-contoso-com for www.contoso.com, so the
 * hosting side serves each App Service certificate under its own name.
 */
export function sampleCertificates(now: Date): SeedCertificate[] {
  const inDays = (days: number) => new Date(now.getTime() + days * DAY_MS);
  const appService = (name: string, zone: string, days: number): SeedCertificate => ({
    certificateName: name,
    rootDomain: `${name.slice(0, name.indexOf("-"))}.${zone}`,
    target: "Cloud App Service",
    challengeType: "http",
    expiryDate: inDays(days),
    cloudSubscriptionId: CLOUD_SUBSCRIPTION,
    email: `admin@${zone}`,
  });
  const withDns = (seed: SeedCertificate): SeedCertificate => ({
    ...seed,
    challengeType: "dns",
    dnsZoneResourceGroup: "rg-dns",
  });
  const keyVault = (name: string, domain: string, days: number): SeedCertificate => ({
    ...withDns(appService(name, domain, days)),
    target: "Cloud Key Vault + DNS",
    keyVaultName: "kv-certsched",
  });
  return [
    appService("www-contoso-com", "contoso.com", 5),
    withDns(appService("shop-contoso-com", "contoso.com", 12)),
    keyVault("api-contoso-com", "contoso.com", 19),
    appService("legacy-fabrikam-com", "fabrikam.com", -1),
    keyVault("vault-fabrikam-com", "fabrikam.com", 2),
    {
      ...keyVault("intranet-contoso-com", "contoso.com", 8),
      // A resource group that holds no zone (the sandbox's ARM has none there): preflight finds
      // it days ahead (dns-zone-missing), the simulator refuses the renewal.
      dnsZoneResourceGroup: SAMPLE_MISSING_ZONE_GROUP,
      refuseRenewal: SAMPLE_REFUSAL,
    },
    appService("staging-contoso-com", "contoso.com", 15),
    appService("blog-contoso-com", "contoso.com", 45),
    keyVault("mail-fabrikam-com", "fabrikam.com", 60),
    withDns(appService("static-contoso-com", "contoso.com", 85)),
    appService("partners-fabrikam-com", "fabrikam.com", 21),
    keyVault("docs-fabrikam-com", "fabrikam.com", 30),
  ];
}
