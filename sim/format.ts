import type { SimCertificate } from "./certificate.js";

/** A certificate record exactly as the public list returns it (spec 2.3): dates as text. */
export type CertificateRecord = Omit<
  SimCertificate,
  "issueDate" | "expiryDate" | "pendingUntil" | "renewals" | "refuseRenewal"
> & { issueDate: string; expiryDate: string };

/**
 * The service's date-time format (spec 2.3): UTC, no zone designator, seven fractional digits,
 * e.g. "2026-12-01T10:00:00.1230000". Clients must not assume a "Z".
 */
export function formatServiceDate(date: Date): string {
  return `${date.toISOString().slice(0, 23)}0000`;
}

export function toCertificateRecord(cert: SimCertificate): CertificateRecord {
  return {
    certificateName: cert.certificateName,
    rootDomain: cert.rootDomain,
    email: cert.email,
    challengeType: cert.challengeType,
    orderUri: cert.orderUri,
    csrInfo: null,
    issueDate: formatServiceDate(cert.issueDate),
    expiryDate: formatServiceDate(cert.expiryDate),
    target: cert.target,
    renewal: cert.renewal,
    id: cert.id,
    subscriptionId: cert.subscriptionId,
    password: cert.password,
    pfxString: cert.pfxString,
    certificateDownloadUrl: cert.certificateDownloadUrl,
    cloudSubscriptionId: cert.cloudSubscriptionId,
    dnsZoneResourceGroup: cert.dnsZoneResourceGroup,
    keyVaultName: cert.keyVaultName,
    keyVaultCertificateName: cert.keyVaultCertificateName,
    siteId: cert.siteId,
  };
}
