import type { CreateCertificateInput } from "../certificate/createRequest.js";
import { APP_SERVICE, KEY_VAULT } from "../certificate/fields.js";
import type { EstateBinding, EstateCertificate } from "./estate.js";
import { vaultCertificateOf } from "./match.js";
import { hostNameOf } from "./normalize.js";

/**
 * The create request certsched would send to bring a discovered certificate under management.
 * It is shown, never sent: what certsched cannot know is an explicit `<placeholder>` in
 * `request`, and its field is listed in `missing`.
 */
export interface CreateProposal {
  readonly request: CreateCertificateInput;
  /** The fields of `request` holding a placeholder, in the order of the request. */
  readonly missing: readonly string[];
}

/** The names it is for: its own, else the host names it is bound to; valid ones only. */
function namesOf(certificate: EstateCertificate): string[] {
  const own = certificate.hostNames.map(hostNameOf).filter((n): n is string => n !== undefined);
  if (own.length > 0) return [...new Set(own)];
  const bound = certificate.boundTo.map((b) => hostNameOf(b.hostName));
  return [...new Set(bound.filter((n): n is string => n !== undefined))];
}

/** `*.contoso.com` -> `wildcard-contoso-com`, `www.contoso.com` -> `www-contoso-com`. */
export function certificateNameFor(hostName: string): string {
  return hostName.replace(/^\*\./, "wildcard-").replaceAll(".", "-");
}

/** The site and slot of an App Service binding's ARM id, with its resource group. */
function siteOf(binding: EstateBinding): { group: string; site: string; slot: string } | undefined {
  if (binding.kind !== "site" && binding.kind !== "slot") return undefined;
  const m =
    /\/resourcegroups\/([^/]+)\/providers\/microsoft\.web\/sites\/([^/]+)(?:\/slots\/([^/]+))?/i.exec(
      binding.resourceId,
    );
  return m ? { group: String(m[1]), site: String(m[2]), slot: m[3] ?? "" } : undefined;
}

type Known = (field: string, value: string | undefined, placeholder: string) => string;

type Common = Omit<CreateCertificateInput, "target" | "challengeType"> & {
  readonly rootDomain: string;
};

function appServiceRequest(certificate: EstateCertificate, common: Common, known: Known) {
  const site = certificate.boundTo.map(siteOf).find((s) => s !== undefined);
  const app = site?.site ?? "the App Service app";
  const domain = common.rootDomain;
  return {
    ...common,
    target: APP_SERVICE,
    challengeType: "http",
    cloudAppServicePlanName: known(
      "cloudAppServicePlanName",
      undefined,
      `the App Service plan of ${app}`,
    ),
    cloudAppServicePlanResourceGroup: known(
      "cloudAppServicePlanResourceGroup",
      undefined,
      `the resource group of the App Service plan of ${app}`,
    ),
    cloudAppServiceResourceGroup: known(
      "cloudAppServiceResourceGroup",
      site?.group,
      `the resource group of the App Service app serving ${domain}`,
    ),
    cloudAppServiceName: known(
      "cloudAppServiceName",
      site && (site.slot ? `${site.site}/${site.slot}` : site.site),
      `the App Service app serving ${domain}`,
    ),
    cloudAppServiceSlotName: site?.slot ?? "",
  } as const;
}

/** The create request that would bring `certificate` under management (see CreateProposal). */
export function createProposal(certificate: EstateCertificate): CreateProposal {
  const missing: string[] = [];
  const known: Known = (field, value, placeholder) => {
    if (value !== undefined) return value;
    missing.push(field);
    return `<${placeholder}>`;
  };
  const names = namesOf(certificate);
  const first = names[0];
  const common = {
    certificateName: known(
      "certificateName",
      first && certificateNameFor(first),
      "a name for the certificate",
    ),
    rootDomain: known("rootDomain", first, "the host name the certificate is for"),
    email: known("email", undefined, "the e-mail address of the CA account"),
    password: known("password", undefined, "a password for the certificate's PFX"),
    isSAN: names.length + certificate.moreHostNames > 1,
    cloudSubscriptionId: certificate.subscriptionId,
  };
  const vault =
    vaultCertificateOf(certificate.keyVaultId) ??
    (certificate.kind === "key-vault" ? vaultCertificateOf(certificate.id) : undefined);
  if (vault === undefined && certificate.kind !== "key-vault")
    return { request: appServiceRequest(certificate, common, known), missing };
  const request: CreateCertificateInput = {
    ...common,
    target: KEY_VAULT,
    challengeType: "dns",
    dnsZoneResourceGroup: known(
      "dnsZoneResourceGroup",
      undefined,
      `the resource group of the DNS zone of ${first ?? "the domain"}`,
    ),
    keyVaultName: known("keyVaultName", vault?.vault, "the name of the Key Vault"),
  };
  return { request, missing };
}
