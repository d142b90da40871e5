import { daysLeft, parseServiceDate } from "./dates.js";
import type { CertificateRecord } from "./records.js";

/** A certificate record as certsched shows it: ISO-8601 UTC dates, days left, no secrets. */
export interface CertificateView {
  certificateName: string;
  id: number;
  subscriptionId: number;
  target: string;
  rootDomain: string | null;
  challengeType: string | null;
  email: string | null;
  renewal: string;
  /** ISO-8601 UTC when the service sent a date; its text as sent otherwise; null when absent. */
  issueDate: string | null;
  expiryDate: string;
  daysLeft: number;
  cloudSubscriptionId: string | null;
  dnsZoneResourceGroup: string | null;
  keyVaultName: string | null;
  keyVaultCertificateName: string | null;
  /** The spec's string, or the certificate-only links of the vendor's object of URLs. */
  certificateDownloadUrl: string | Readonly<Record<string, string>> | null;
  siteId: number;
}

/**
 * Drops what must never leave certsched: the certificate's password and its PFX (private key).
 * Listing is for deciding; whoever needs the key material gets it from the service or the vault.
 * Fields certsched does not use may come in any JSON type (records.ts keeps them as sent): each
 * is shown in its documented type when it has it, as JSON text when it does not, so a surprising
 * record never breaks the list.
 */
export function certificateView(record: CertificateRecord, now: Date): CertificateView {
  return {
    certificateName: record.certificateName,
    id: record.id,
    subscriptionId: record.subscriptionId,
    target: record.target,
    rootDomain: record.rootDomain,
    challengeType: textOf(record.challengeType),
    email: textOf(record.email),
    renewal: record.renewal,
    issueDate: dateOf(record.issueDate),
    expiryDate: record.expiryDate.toISOString(),
    daysLeft: daysLeft(record.expiryDate, now),
    cloudSubscriptionId: textOf(record.cloudSubscriptionId),
    dnsZoneResourceGroup: textOf(record.dnsZoneResourceGroup),
    keyVaultName: record.keyVaultName,
    keyVaultCertificateName: record.keyVaultCertificateName,
    certificateDownloadUrl: downloadUrlOf(record.certificateDownloadUrl),
    siteId:
      typeof record.siteId === "number" && Number.isInteger(record.siteId) ? record.siteId : 0,
  };
}

/** A documented string field: itself, null when absent, any other JSON value as its JSON text. */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

function dateOf(value: unknown): string | null {
  if (typeof value !== "string") return textOf(value);
  return parseServiceDate(value)?.toISOString() ?? value;
}

/**
 * Links to public certificate files only. The vendor's object of URLs also links the PFX and
 * the private key (pfxUrl, keyUrl, keyTxtUrl) and files whose content it does not state (pemUrl,
 * txtUrl): like password and pfxString, none of those may leave certsched. Kept: names ending in
 * crtUrl or cerUrl (crtUrl, cerUrl, certCrtUrl, cabundleCrtUrl, fullchainCrtUrl).
 */
const PUBLIC_CERTIFICATE_LINK = /(crt|cer)Url$/i;

function downloadUrlOf(value: unknown): CertificateView["certificateDownloadUrl"] {
  if (typeof value === "string") return value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const links: Record<string, string> = {};
  for (const [name, link] of Object.entries(value)) {
    if (typeof link === "string" && PUBLIC_CERTIFICATE_LINK.test(name)) links[name] = link;
  }
  return links;
}
