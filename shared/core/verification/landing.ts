import { instantText, sameCertificate, shortPrint } from "./served.js";

/**
 * Whether a renewal in flight landed: the fingerprints decide when the one
 * served before the request is known (a re-issued certificate with the same expiry is a
 * landing); without it, the date rule (a later expiry than at the request) stands in.
 */

/** The parts of an accepted renewal (judge.ts AcceptedRenewal) the rule reads. */
export interface RenewalFacts {
  readonly expiryAtRequest: Date;
  readonly beforeThumbprint?: string | undefined;
}

/** The parts of a served certificate the rule reads. */
export interface CertificateFacts {
  readonly thumbprint: string;
  readonly notAfter: Date;
}

export function hasLanded(renewal: RenewalFacts, certificate: CertificateFacts): boolean {
  if (renewal.beforeThumbprint !== undefined && renewal.beforeThumbprint !== "") {
    return !sameCertificate(certificate.thumbprint, renewal.beforeThumbprint);
  }
  return certificate.notAfter.getTime() > renewal.expiryAtRequest.getTime();
}

/** Why it has not landed, for pending and not-landed: "the certificate served still ...". */
export function stillServed(renewal: RenewalFacts, certificate: CertificateFacts): string {
  if (renewal.beforeThumbprint !== undefined && renewal.beforeThumbprint !== "") {
    const still = `SHA-256 ${shortPrint(certificate.thumbprint)}, expires ${instantText(certificate.notAfter)}`;
    return `the certificate served is still the one from before the renewal (${still})`;
  }
  const iso = (d: Date) => d.toISOString();
  return `the certificate served still expires at ${iso(certificate.notAfter)}, no later than before the renewal (${iso(renewal.expiryAtRequest)})`;
}
