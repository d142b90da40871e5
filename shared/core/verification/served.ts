import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * The receipt of a renewal: what was served (or held in the vault) before
 * the renewal was accepted and what is served after it, so history can say "the served
 * certificate changed from ... to ... at ..." or that it never changed.
 */

/** What one reading saw of a certificate; the fingerprint says which certificate it was. */
export interface ServedFacts {
  /** SHA-256 of the DER certificate, upper-case hex, whole. */
  readonly thumbprint: string;
  /** Upper-case hex, bounded. */
  readonly serial?: string | undefined;
  /** Escaped and bounded: a server may send a 30,000-character name. */
  readonly issuer?: string | undefined;
  readonly notBefore?: Date | undefined;
  readonly notAfter?: Date | undefined;
  /** Key Vault: the version id of the vault's current version. */
  readonly version?: string | undefined;
  /** SHA-256 of the SPKI and of the RFC 6962 TBS, 64 lower-case hex: how CT issuances are matched. */
  readonly pubkeySha256?: string | undefined;
  readonly tbsSha256?: string | undefined;
}

/**
 * What verification keeps about the renewal in flight, with the certificate's last reading:
 * when the service accepted it, what was served before (the last reading before that moment),
 * and, once a different certificate is served, that one and when it was first seen.
 */
export interface Receipt {
  readonly acceptedAt: Date;
  readonly before?: ServedFacts | undefined;
  readonly after?: ServedFacts | undefined;
  readonly landedAt?: Date | undefined;
}

/** Longest serial, issuer or version kept in a receipt. */
export const MAX_FACT = 200;

/** Characters of a fingerprint or serial shown to people (stored whole). */
const SHOWN = 16;

/** A reading as verification keeps it (VerificationRecord's names). */
export interface Reading {
  readonly thumbprint?: string | undefined;
  readonly serial?: string | undefined;
  readonly issuer?: string | undefined;
  readonly notBefore?: Date | undefined;
  readonly servedNotAfter?: Date | undefined;
  readonly version?: string | undefined;
  readonly pubkeySha256?: string | undefined;
  readonly tbsSha256?: string | undefined;
}

/** The facts of a reading that read a certificate; undefined when it read none. */
export function factsOf(reading: Reading | undefined): ServedFacts | undefined {
  if (reading?.thumbprint === undefined || reading.thumbprint === "") return undefined;
  const text = (t: string | undefined) => (t === undefined ? undefined : boundDetail(t, MAX_FACT));
  const facts = {
    thumbprint: reading.thumbprint.toUpperCase(),
    serial: text(reading.serial),
    issuer: text(reading.issuer),
    notBefore: reading.notBefore,
    notAfter: reading.servedNotAfter,
    version: text(reading.version),
    // Carried whole: CT issuances are matched by them (they are never shown to people).
    pubkeySha256: reading.pubkeySha256,
    tbsSha256: reading.tbsSha256,
  };
  return Object.fromEntries(
    Object.entries(facts).filter(([, v]) => v !== undefined),
  ) as unknown as ServedFacts;
}

/** "AB12CD34EF56AB12…": the first 16 hex characters, for people. */
export function shortPrint(hex: string): string {
  const shown = boundDetail(hex, SHOWN + 1);
  return hex.length > SHOWN ? `${shown.slice(0, SHOWN)}…` : shown;
}

/** ISO-8601 UTC without milliseconds when there are none (X.509 keeps whole seconds). */
export const instantText = (d: Date) => d.toISOString().replace(/\.000Z$/, "Z");

/** "SHA-256 AB12CD34EF56AB12… (serial 0A1B…, expires 2026-12-01T00:00:00Z)". */
export function describeServed(f: ServedFacts): string {
  const about = [
    ...(f.version === undefined ? [] : [`version ${boundDetail(f.version, 40)}`]),
    ...(f.serial === undefined ? [] : [`serial ${shortPrint(f.serial)}`]),
    ...(f.notAfter === undefined ? [] : [`expires ${instantText(f.notAfter)}`]),
  ];
  return `SHA-256 ${shortPrint(f.thumbprint)}${about.length > 0 ? ` (${about.join(", ")})` : ""}`;
}

/** Whether two readings are the same certificate (fingerprints compared whole, any case). */
export const sameCertificate = (a: string, b: string) => a.toUpperCase() === b.toUpperCase();

/** The `landed` event's detail. */
export function landedDetail(before: ServedFacts, after: ServedFacts, at: Date): string {
  return `the served certificate changed from ${describeServed(before)} to ${describeServed(after)} at ${instantText(at)}`;
}
