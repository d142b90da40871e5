import { DAY_MS } from "../shared/lib/time.js";
/** The two installation targets of the service (spec 2.1), spelled exactly as on the wire. */
export type CertificateTarget = "Cloud App Service" | "Cloud Key Vault + DNS";
export type ChallengeType = "http" | "dns";

export const APP_SERVICE_TARGET: CertificateTarget = "Cloud App Service";
export const KEY_VAULT_TARGET: CertificateTarget = "Cloud Key Vault + DNS";

/**
 * What a record's target may hold: the spec's two, or any other the service reports (the
 * vendor's docs show a DNS-only and a stand-alone certificate, which the spec does not list).
 */
export type RecordTarget = CertificateTarget | (string & {});

/** "Automatic" is the spec's (2.3); the vendor's docs also show "Manual". */
export type Renewal = "Automatic" | "Manual";

/**
 * certificateDownloadUrl as the real service fills it in: the vendor's client reads an object of
 * links (pemUrl, crtUrl, fullchainCrtUrl, keyUrl, ...) where the spec documents a string.
 */
export type DownloadUrl = string | Readonly<Record<string, string>>;

/** A certificate the simulator starts with (or that a test adds). */
export interface SeedCertificate {
  certificateName: string;
  /** Default null. */
  rootDomain?: string;
  /** Default "Cloud App Service"; any other text is listed and renewed as it is. */
  target?: RecordTarget;
  /** Default "Automatic". */
  renewal?: Renewal;
  /** Default null. */
  certificateDownloadUrl?: DownloadUrl;
  /** Default null. Secret material the service may send; certsched must never show it. */
  password?: string;
  /** Default null. The PFX (private key) as text; certsched must never show it. */
  pfxString?: string;
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
  target: RecordTarget;
  renewal: Renewal;
  id: number;
  subscriptionId: number;
  password: string | null;
  pfxString: string | null;
  certificateDownloadUrl: DownloadUrl | null;
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
export const CERTIFICATE_LIFETIME_MS = 90 * DAY_MS;
/** The public list returns certificates expiring within this window (spec 4.3). */
export const RENEWAL_WINDOW_MS = 20 * DAY_MS;
