import { createHash } from "node:crypto";
import { DAY_MS, HOUR_MS } from "../shared/lib/time.js";
import type { ArmSimulator } from "./arm/armServer.js";
import type { SimCertificate } from "./certificate.js";
import type { VaultEstate } from "./hosting/vaultList.js";
import type { Simulator } from "./simulator.js";

/**
 * The sandbox's estate for contoso: what Resource Graph and the vaults show beyond certsched's
 * own list. The contoso sample certificates certsched keeps are there as App Service
 * certificates bound to their sites (App Service) or in its vault (Key Vault); and two it does
 * not keep: an Application Gateway listener's certificate from a team's Key Vault secret,
 * expiring in 9 days, bound to the listener for portal.contoso.com, and an App Service
 * certificate uploaded by hand that is bound nowhere.
 */

/** The sandbox account whose estate `npm start` shows. */
export const SANDBOX_ESTATE_ACCOUNT = "contoso";

/** The estate's own subscription (the gateway and the team's vault live there). */
export const SANDBOX_ESTATE_SUBSCRIPTION = "00000000-0000-4000-8000-0000000e57a7";

/** The certificate certsched does not keep, on an Application Gateway, expiring in 9 days. */
export const SANDBOX_ESTATE_UNMANAGED = {
  gateway: "agw-contoso",
  resourceGroup: "rg-network",
  listener: "https-portal",
  certificate: "portal-contoso-com",
  hostName: "portal.contoso.com",
  vault: "kv-contoso-net",
  days: 9,
} as const;

/** The App Service certificate uploaded by hand and bound nowhere. */
export const SANDBOX_ESTATE_UNBOUND = {
  name: "partners-2023",
  resourceGroup: "rg-web",
  hostName: "partners.contoso.com",
  days: 120,
} as const;

export interface SandboxEstateOptions {
  /** Now on the sim clock (default: the real clock's now, as the sandbox's samples are made). */
  readonly now?: Date | undefined;
  /**
   * The thumbprint (40 upper hex) of the certificate the hosting side serves for a sample
   * certificate; default: a stand-in derived from its name (matching then goes by name and host).
   */
  readonly thumbprintOf?: ((certificateName: string) => string | undefined) | undefined;
}

/** A stand-in thumbprint: SHA-1 of the text, 40 upper-case hex. */
export const standInThumbprint = (text: string) =>
  createHash("sha1").update(text).digest("hex").toUpperCase();

const isContoso = (c: SimCertificate) =>
  c.rootDomain?.toLowerCase().endsWith("contoso.com") ?? false;

/**
 * Seeds a started simulator's Resource Graph (`arm`) and vault (`sim.hosting`, which must be on)
 * with the sandbox's estate for contoso.
 */
export function seedSandboxEstate(
  sim: Simulator,
  arm: ArmSimulator,
  options: SandboxEstateOptions = {},
): void {
  const hosting = sim.hosting;
  if (hosting === undefined) throw new RangeError("the sandbox's estate needs the hosting side");
  const vault = (hosting.vault as unknown as { estate: VaultEstate }).estate;
  const now = options.now ?? new Date();
  const inDays = (days: number) => new Date(now.getTime() + days * DAY_MS);
  const thumbprint = (name: string) => options.thumbprintOf?.(name) ?? standInThumbprint(name);
  const vaults = new Set<string>();

  for (const cert of sim.certificates().filter(isContoso)) {
    const subscriptionId = cert.cloudSubscriptionId ?? SANDBOX_ESTATE_SUBSCRIPTION;
    const host = (cert.rootDomain ?? "").toLowerCase();
    if (cert.keyVaultName) {
      vaults.add(`${subscriptionId}/${cert.keyVaultName.toLowerCase()}`);
      continue;
    }
    arm.estate.addAppServiceCertificate({
      subscriptionId,
      resourceGroup: "rg-web",
      name: cert.certificateName,
      thumbprint: thumbprint(cert.certificateName),
      notBefore: cert.issueDate,
      expiresAt: cert.expiryDate,
      hostNames: [host],
    });
    const site = host.slice(0, host.indexOf("."));
    const bindings = [{ hostName: host, thumbprint: thumbprint(cert.certificateName) }];
    arm.estate.addSite({ subscriptionId, resourceGroup: "rg-web", name: `app-${site}`, bindings });
  }
  for (const entry of vaults) {
    const [subscriptionId = "", name = ""] = entry.split("/");
    arm.estate.addVault({ subscriptionId, resourceGroup: "rg-certsched", name });
  }

  const u = SANDBOX_ESTATE_UNMANAGED;
  arm.estate.addGateway({
    subscriptionId: SANDBOX_ESTATE_SUBSCRIPTION,
    resourceGroup: u.resourceGroup,
    name: u.gateway,
    certificates: [
      {
        name: u.certificate,
        keyVaultSecretId: `https://${u.vault}.vault.azure.net/secrets/${u.certificate}`,
      },
    ],
    listeners: [{ name: u.listener, hostName: u.hostName, certificate: u.certificate }],
  });
  arm.estate.addVault({
    subscriptionId: SANDBOX_ESTATE_SUBSCRIPTION,
    resourceGroup: u.resourceGroup,
    name: u.vault,
  });
  vault.addForeign(u.vault, u.certificate, {
    notBefore: inDays(u.days - 365),
    // An hour past the ninth day: a report made in the minutes after seeding still says 9 days.
    notAfter: new Date(inDays(u.days).getTime() + HOUR_MS),
    autoRenew: false,
    issuer: "Unknown",
  });

  const b = SANDBOX_ESTATE_UNBOUND;
  arm.estate.addAppServiceCertificate({
    subscriptionId: SANDBOX_ESTATE_SUBSCRIPTION,
    resourceGroup: b.resourceGroup,
    name: b.name,
    thumbprint: standInThumbprint(b.name),
    notBefore: inDays(b.days - 365),
    expiresAt: inDays(b.days),
    hostNames: [b.hostName],
    issuer: "Simulated CA",
  });
}
