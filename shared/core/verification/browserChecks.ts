import { escapeControl } from "../../lib/text/escapeControl.js";
import { DAY_MS, SECOND_MS } from "../../lib/time.js";
import type { ServedCertificate } from "../ports/probes.js";

/**
 * What a browser checks beyond trust, name and dates (docs/contracts/verify.md, "Extended
 * statuses"): that the endpoint sends what a client needs to build the chain, that the key and
 * the signature are strong enough, and that the validity is within the CA/Browser Forum's limit.
 * judge.ts puts them in the contract's order.
 */

export type BrowserStatus = "incomplete-chain" | "weak" | "too-long";

export interface BrowserFinding {
  readonly status: BrowserStatus;
  readonly detail: string;
}

/** Below these a key is `weak` (bits). */
export const MIN_RSA_BITS = 2048;
export const MIN_EC_BITS = 256;

/** Signature algorithms that make a certificate `weak`: SHA-1, and the older MD5 and MD2. */
const WEAK_SIGNATURES: ReadonlySet<string> = new Set([
  "1.2.840.113549.1.1.5", // sha1WithRSAEncryption
  "1.3.14.3.2.29", // sha1WithRSASignature (OIW)
  "1.2.840.10045.4.1", // ecdsa-with-SHA1
  "1.2.840.10040.4.3", // dsa-with-sha1
  "1.2.840.113549.1.1.4", // md5WithRSAEncryption
  "1.2.840.113549.1.1.2", // md2WithRSAEncryption
]);

/** Whether a signature algorithm (by OID) makes a certificate `weak`. */
export function isWeakSignature(oid: string | undefined): boolean {
  return oid !== undefined && WEAK_SIGNATURES.has(oid);
}

/**
 * The CA/Browser Forum's maximum validity, by the notBefore it applies to (ballot SC-081): each
 * step applies from its date (UTC midnight) on. Ordered latest first.
 */
export const VALIDITY_LIMITS: readonly { readonly from: Date; readonly days: number }[] = [
  { from: new Date("2029-03-15T00:00:00Z"), days: 47 },
  { from: new Date("2027-03-15T00:00:00Z"), days: 100 },
  { from: new Date("2026-03-15T00:00:00Z"), days: 200 },
  { from: new Date(-8.64e15), days: 398 },
];

/** The limit in force on `notBefore`, in days. */
export function validityLimitDays(notBefore: Date): number {
  const t = notBefore.getTime();
  for (const limit of VALIDITY_LIMITS) if (t >= limit.from.getTime()) return limit.days;
  return 398;
}

/** "400 days", "200 days and 1 s": a validity in words, to the second. */
function validityText(seconds: number): string {
  const days = Math.floor(seconds / (DAY_MS / SECOND_MS));
  const rest = seconds - (days * DAY_MS) / SECOND_MS;
  return `${days} day${days === 1 ? "" : "s"}${rest === 0 ? "" : ` and ${rest} s`}`;
}

/**
 * `incomplete-chain`: the leaf's issuer is neither among the certificates the endpoint sent nor
 * a trust anchor, and the leaf is not self-issued (a self-signed certificate is `untrusted`).
 * `issuerFound` undefined (a vault read: no chain is served) decides nothing.
 */
export function incompleteChain(
  certificate: ServedCertificate,
  issuerFound: boolean | undefined,
): BrowserFinding | undefined {
  if (issuerFound !== false || certificate.selfIssued === true) return undefined;
  return {
    status: "incomplete-chain",
    detail: `the endpoint does not send the certificate that issued its certificate (${escapeControl(certificate.issuer)}), and no trusted root is that issuer: browsers and clients that do not fetch missing intermediates refuse it`,
  };
}

/** Why a key is `weak` (RSA under 2048 bits, EC under 256 bits); undefined: it is not. */
export function weakKeyReason(key: ServedCertificate["key"]): string | undefined {
  if (key?.bits === undefined) return undefined;
  if ((key.type === "rsa" || key.type === "rsa-pss") && key.bits < MIN_RSA_BITS) {
    return `an RSA key of ${key.bits} bits, under ${MIN_RSA_BITS}`;
  }
  if (key.type === "ec" && key.bits < MIN_EC_BITS) {
    const curve = key.curve === undefined ? "" : ` (${escapeControl(key.curve)})`;
    return `an EC key of ${key.bits} bits${curve}, under P-256`;
  }
  return undefined;
}

/** `weak`: RSA under 2048 bits, EC under 256 bits, or a SHA-1 (or older) signature. */
export function weak(certificate: ServedCertificate): BrowserFinding | undefined {
  const reasons: string[] = [];
  const keyReason = weakKeyReason(certificate.key);
  if (keyReason !== undefined) reasons.push(keyReason);
  if (isWeakSignature(certificate.signature?.oid)) {
    reasons.push(`a ${escapeControl(certificate.signature?.name ?? "")} signature`);
  }
  if (reasons.length === 0) return undefined;
  return {
    status: "weak",
    detail: `the certificate has ${reasons.join(" and ")}: browsers refuse it`,
  };
}

/**
 * `too-long`: notAfter − notBefore, in seconds, exceeds the limit in force on notBefore; a
 * certificate of exactly the limit is allowed.
 */
export function tooLong(certificate: ServedCertificate): BrowserFinding | undefined {
  const seconds = Math.floor(
    (certificate.notAfter.getTime() - certificate.notBefore.getTime()) / SECOND_MS,
  );
  const days = validityLimitDays(certificate.notBefore);
  if (seconds <= (days * DAY_MS) / SECOND_MS) return undefined;
  const step = VALIDITY_LIMITS.find((l) => l.days === days);
  const since =
    days === 398 ? "before 2026-03-15" : `from ${step?.from.toISOString().slice(0, 10) ?? "?"} on`;
  return {
    status: "too-long",
    detail: `valid for ${validityText(seconds)} (from ${certificate.notBefore.toISOString()} to ${certificate.notAfter.toISOString()}), more than the ${days} days the CA/Browser Forum allows a certificate issued ${since}: browsers refuse it`,
  };
}
