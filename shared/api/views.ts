import { daysLeft } from "../dates.js";
import type { CertificateRecord } from "../schemas/records.js";

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
  issueDate: string;
  expiryDate: string;
  daysLeft: number;
  cloudSubscriptionId: string | null;
  dnsZoneResourceGroup: string | null;
  keyVaultName: string | null;
  keyVaultCertificateName: string | null;
  certificateDownloadUrl: string | null;
  siteId: number;
}

/**
 * Drops what must never leave certsched: the certificate's password and its PFX (private key).
 * Listing is for deciding; whoever needs the key material gets it from the service or the vault.
 */
export function certificateView(record: CertificateRecord, now: Date): CertificateView {
  return {
    certificateName: record.certificateName,
    id: record.id,
    subscriptionId: record.subscriptionId,
    target: record.target,
    rootDomain: record.rootDomain,
    challengeType: record.challengeType,
    email: record.email,
    renewal: record.renewal,
    issueDate: record.issueDate.toISOString(),
    expiryDate: record.expiryDate.toISOString(),
    daysLeft: daysLeft(record.expiryDate, now),
    cloudSubscriptionId: record.cloudSubscriptionId,
    dnsZoneResourceGroup: record.dnsZoneResourceGroup,
    keyVaultName: record.keyVaultName,
    keyVaultCertificateName: record.keyVaultCertificateName,
    certificateDownloadUrl: record.certificateDownloadUrl,
    siteId: record.siteId,
  };
}
