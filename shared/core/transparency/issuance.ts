/**
 * What certsched keeps of one issuance a Certificate Transparency log watcher reported: a
 * certificate and its precertificate coalesced into one, named by the watcher's opaque id.
 * Every field came from outside: the adapter bounds, validates and escapes it before it is one.
 */

/** Most DNS names kept per issuance; the rest are counted in `moreNames`. */
export const MAX_ISSUANCE_NAMES = 100;
/** Longest id kept; a longer one makes the page unreadable (an id is how paging goes on). */
export const MAX_ISSUANCE_ID = 40;
/** Longest issuer text and DNS name kept (escaped, bounded). */
export const MAX_ISSUER_TEXT = 200;
export const MAX_DNS_NAME = 253;

export interface Issuance {
  /** The watcher's id: opaque, at most MAX_ISSUANCE_ID characters of [0-9A-Za-z_-]. */
  readonly id: string;
  /** SHA-256 of the TBSCertificate as RFC 6962 defines it: 64 lower-case hex; same for the precertificate. */
  readonly tbsSha256?: string | undefined;
  /** SHA-256 of the DER certificate (or of the precertificate while only that is logged): for links only. */
  readonly certSha256?: string | undefined;
  /** SHA-256 of the DER SubjectPublicKeyInfo: 64 lower-case hex. */
  readonly pubkeySha256?: string | undefined;
  /** Undefined when absent or outside 1970..9998 (the problem says so). */
  readonly notBefore?: Date | undefined;
  readonly notAfter?: Date | undefined;
  /** Escaped (control and bidi characters visible), bounded, at most MAX_ISSUANCE_NAMES. */
  readonly dnsNames: readonly string[];
  /** Names the answer had beyond those kept. */
  readonly moreNames: number;
  /** The issuer's friendly name or distinguished name, escaped and bounded. */
  readonly issuer?: string | undefined;
  readonly revoked: boolean;
  readonly revokedAt?: Date | undefined;
  /** Fields that could not be read, in words ("not_after is not a date"); empty when none. */
  readonly problems: readonly string[];
}

/** A name certsched asks the watcher about, for one account. */
export interface WatchedName {
  /** Lower-case DNS name, no trailing dot, no wildcard label. */
  readonly name: string;
  /** Also its subdomains, at any depth (and wildcards that match). */
  readonly subdomains: boolean;
  /** Where the name came from: the inventory (a certificate certsched keeps) or the setting. */
  readonly source: "inventory" | "setting";
}

/** A renewal or creation certsched sent, for the completion-window rule. */
export interface SentRequest {
  readonly certificateName: string;
  /** The certificate's names (root domain and SAN names), lower-case. */
  readonly names: readonly string[];
  readonly kind: "renewal" | "creation";
  readonly sentAt: Date;
  /** When a verification first read the new certificate where users look; undefined: not yet. */
  readonly landedAt?: Date | undefined;
}

/** A certificate certsched has read (served, in a vault, or in a receipt), by its hashes. */
export interface KnownCertificate {
  readonly certificateName: string;
  readonly where: "served" | "vault" | "receipt";
  readonly pubkeySha256?: string | undefined;
  readonly tbsSha256?: string | undefined;
}

/** Why an issuance is what it is. */
export type IssuanceVerdict =
  /** Its public key or TBS hash is that of a certificate certsched has read. */
  | {
      readonly kind: "expected";
      readonly because: "public-key" | "tbs";
      readonly certificateName: string;
      readonly where: KnownCertificate["where"];
    }
  /** It was issued in the completion window of a request certsched sent, which later landed. */
  | {
      readonly kind: "expected";
      readonly because: "request";
      readonly certificateName: string;
      readonly sentAt: Date;
    }
  /** In the completion window of a request certsched sent that has not landed yet: judged at `until`. */
  | {
      readonly kind: "pending";
      readonly certificateName: string;
      readonly sentAt: Date;
      readonly until: Date;
    }
  /**
   * Nothing certsched did explains it. `recorded`: its history event and alert line are written
   * (once, by the process that claimed its message first).
   */
  | {
      readonly kind: "unexpected";
      readonly since: Date;
      readonly why: string;
      readonly recorded?: boolean | undefined;
    };

/** An acknowledgement by a person: the red line goes, the history keeps it. */
export interface Acknowledgement {
  readonly at: Date;
  /** "function-key", "entra:<name> (<object id>)" or "cli". */
  readonly by: string;
  /** Escaped, at most 500 characters. */
  readonly reason: string;
}

/** An issuance as stored for one account. */
export interface SeenIssuance {
  readonly account: string;
  readonly issuance: Issuance;
  /** The watched name whose query returned it first. */
  readonly watched: string;
  /** When certsched first read it. */
  readonly firstSeenAt: Date;
  readonly verdict: IssuanceVerdict;
  /** When its one webhook message went out; undefined while none has. */
  readonly notifiedAt?: Date | undefined;
  readonly acknowledged?: Acknowledgement | undefined;
}
