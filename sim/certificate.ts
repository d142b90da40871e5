/** The two installation targets of the service (spec 2.1), spelled exactly as on the wire. */
export type CertificateTarget = "Cloud App Service" | "Cloud Key Vault + DNS";
export type ChallengeType = "http" | "dns";

export const APP_SERVICE_TARGET: CertificateTarget = "Cloud App Service";
export const KEY_VAULT_TARGET: CertificateTarget = "Cloud Key Vault + DNS";

/** A certificate the simulator starts with (or that a test adds). */
export interface SeedCertificate {
  certificateName: string;
  /** Default null. */
  rootDomain?: string;
  /** Default "Cloud App Service". */
  target?: CertificateTarget;
  /** Default "dns" for the key-vault target, else "http". */
  challengeType?: ChallengeType;
  expiryDate: Date;
  /** Default 90 days before expiryDate. */
  issueDate?: Date;
  /** Default the next free id. */
  id?: number;
  /** When set, renew calls (v3 and public) for this certificate answer 400 text/plain with this text. */
  refuseRenewal?: string;
  keyVaultName?: string;
  cloudSubscriptionId?: string;
  dnsZoneResourceGroup?: string;
  email?: string;
}

/**
 * A certificate as the simulator holds it: the certificate record of spec 2.3 with real dates,
 * plus bookkeeping that the wire never shows.
 */
export interface SimCertificate {
  certificateName: string;
  rootDomain: string | null;
  email: string | null;
  challengeType: ChallengeType | null;
  orderUri: string | null;
  csrInfo: null;
  issueDate: Date;
  expiryDate: Date;
  target: CertificateTarget;
  renewal: "Automatic";
  id: number;
  subscriptionId: number;
  password: null;
  pfxString: null;
  certificateDownloadUrl: null;
  cloudSubscriptionId: string | null;
  dnsZoneResourceGroup: string | null;
  keyVaultName: string | null;
  keyVaultCertificateName: string | null;
  siteId: number;
  /** Set while a renewal is scheduled: the sim-clock time at which it completes. */
  pendingUntil?: Date;
  /** Accepted renew calls (v3 and public) for this certificate. */
  renewals: number;
  refuseRenewal?: string;
}

/** Validity of an issued or renewed certificate. */
export const CERTIFICATE_LIFETIME_MS = 90 * 24 * 3600 * 1000;
/** The public list returns certificates expiring within this window (spec 4.3). */
export const RENEWAL_WINDOW_MS = 20 * 24 * 3600 * 1000;
