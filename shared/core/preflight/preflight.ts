import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * Preflight: what will make a certificate's renewal fail, found days before the
 * renewal runs, while a person can still fix it. The names and the document are a contract
 * (docs/contracts/preflight.md): outside tests read them exactly.
 */

/** The checks, in the order they are reported. */
export const PREFLIGHT_CHECKS = [
  "caa",
  "dns-zone",
  "dns-delegation",
  "app-binding",
  "http-challenge",
  "access",
] as const;
export type PreflightCheckName = (typeof PREFLIGHT_CHECKS)[number];

/** What one check found: `unknown` when it could not decide (a timeout, a 5xx). */
export type CheckStatus = "pass" | "fail" | "unknown";

/** A certificate's result: `will-fail` when any check fails, `unknown` when none fails and one is unknown. */
export const PREFLIGHT_STATUSES = ["ready", "will-fail", "unknown"] as const;
export type PreflightStatus = (typeof PREFLIGHT_STATUSES)[number];

/** The reason of a failed check (the contract's table). */
export const FAIL_REASONS = [
  "caa-forbids",
  "dns-zone-missing",
  "dns-not-delegated",
  "app-missing",
  "hostname-not-bound",
  "http-challenge-unreachable",
  "credentials-refused",
  "role-missing",
] as const;
export type FailReason = (typeof FAIL_REASONS)[number];

/** The longest `detail`, in characters (the contract: one line, under 300). */
export const MAX_CHECK_DETAIL = 299;

/**
 * A check's detail as the contract wants it: secrets redacted, control characters (newlines
 * included) escaped, at most MAX_CHECK_DETAIL characters. Every detail passes here: DNS, ARM
 * and the app may answer anything.
 */
export function checkDetail(text: string): string {
  return boundDetail(redact(text), MAX_CHECK_DETAIL);
}

export interface PreflightCheck {
  readonly check: PreflightCheckName;
  readonly status: CheckStatus;
  /** Set exactly when the check failed. */
  readonly reason?: FailReason | undefined;
  /** One line for people: redacted, escaped, at most MAX_CHECK_DETAIL characters. */
  readonly detail: string;
}

export interface PreflightResult {
  readonly account: string;
  readonly certificateName: string;
  /** The domain the checks looked at; null when the record names none. */
  readonly rootDomain: string | null;
  readonly status: PreflightStatus;
  /** Every check that applies to the certificate, in PREFLIGHT_CHECKS order. */
  readonly checks: readonly PreflightCheck[];
  /** When the checks ran. */
  readonly at: Date;
}

/** The contract's rule: any fail is `will-fail`; else any unknown is `unknown`; else `ready`. */
export function resultStatus(checks: readonly Pick<PreflightCheck, "status">[]): PreflightStatus {
  if (checks.some((c) => c.status === "fail")) return "will-fail";
  if (checks.some((c) => c.status === "unknown")) return "unknown";
  return "ready";
}

/** `counts` of the JSON document: every status, zero included. */
export function countByStatus(
  results: readonly Pick<PreflightResult, "status">[],
): Record<PreflightStatus, number> {
  const counts: Record<PreflightStatus, number> = { ready: 0, "will-fail": 0, unknown: 0 };
  for (const r of results) counts[r.status] += 1;
  return counts;
}

/** The failed checks' reasons, in check order (one certificate may have several). */
export function failReasons(result: Pick<PreflightResult, "checks">): FailReason[] {
  return result.checks.flatMap((c) => (c.status === "fail" && c.reason ? [c.reason] : []));
}

/** Checks sorted into the contract's order (PREFLIGHT_CHECKS). */
export function inCheckOrder<T extends Pick<PreflightCheck, "check">>(checks: readonly T[]): T[] {
  return [...checks].sort(
    (a, b) => PREFLIGHT_CHECKS.indexOf(a.check) - PREFLIGHT_CHECKS.indexOf(b.check),
  );
}

/** A check as the contract's JSON document writes it: `reason` on every check, null unless failed. */
export interface CheckDocument {
  readonly check: PreflightCheckName;
  readonly status: CheckStatus;
  readonly reason: FailReason | null;
  readonly detail: string;
}

/** One check in the contract's document shape (the CLI's --json, GET and POST /api/preflight). */
export function checkDocument(c: PreflightCheck): CheckDocument {
  return {
    check: c.check,
    status: c.status,
    reason: c.status === "fail" ? (c.reason ?? null) : null,
    detail: c.detail,
  };
}
