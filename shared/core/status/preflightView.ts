import { escapeControl } from "../../lib/text/escapeControl.js";
import type { PreflightRecord } from "../ports/inventory.js";
import { PREFLIGHT_ADVICE } from "../preflight/advice.js";
import { blockingReason } from "../preflight/blocking.js";
import {
  type CheckStatus,
  checkDetail,
  type FailReason,
  failReasons,
  inCheckOrder,
  PREFLIGHT_STATUSES,
  type PreflightCheckName,
  type PreflightStatus,
} from "../preflight/preflight.js";

/**
 * The last preflight of a certificate as the status view shows it: everywhere a
 * certificate's state is shown (GET /api/certificates, its detail, `certsched status`, the
 * dashboard). The status word itself is left alone: a will-fail preflight is said beside it
 * (`ok · will fail (caa-forbids)`), so the words, their filters and their counts read as they
 * did for every certificate that has no preflight or a ready or unknown one.
 */

/** One check as shown: what a person reads to fix it. */
export interface PreflightCheckView {
  readonly check: PreflightCheckName;
  readonly status: CheckStatus;
  /** The failed check's reason; null when it did not fail. */
  readonly reason: FailReason | null;
  /** One line: redacted, control characters escaped, at most MAX_CHECK_DETAIL characters. */
  readonly detail: string;
  /** What to do about the reason (core/preflight/advice.ts); null when it did not fail. */
  readonly advice: string | null;
}

export interface PreflightView {
  readonly status: PreflightStatus;
  /** When the checks ran, ISO-8601 UTC. */
  readonly at: string;
  /** The domain the checks looked at (control characters escaped); null when none. */
  readonly rootDomain: string | null;
  /** The failed checks' reasons, in check order; empty unless `will-fail`. */
  readonly reasons: FailReason[];
  readonly checks: PreflightCheckView[];
  /**
   * The reason the sweep does not send this certificate's renewal now (core/preflight/
   * blocking.ts: a reason only a person can fix, found less than a day ago); null: not blocked.
   */
  readonly blocks: FailReason | null;
}

/**
 * The stored record as shown at `now`; null when the certificate was never checked. The stored
 * texts are input like any other row: every detail passes checkDetail again.
 */
export function preflightView(
  record: PreflightRecord | undefined,
  now: Date,
): PreflightView | null {
  if (!record) return null;
  const ordered = inCheckOrder(record.checks);
  const checks = ordered.map((c) => {
    const reason = c.status === "fail" && c.reason ? c.reason : null;
    return {
      check: c.check,
      status: c.status,
      reason,
      detail: checkDetail(c.detail),
      advice: reason ? PREFLIGHT_ADVICE[reason] : null,
    };
  });
  return {
    status: record.status,
    at: record.at.toISOString(),
    rootDomain: record.rootDomain === null ? null : escapeControl(record.rootDomain),
    reasons: record.status === "will-fail" ? failReasons({ checks: ordered }) : [],
    checks,
    blocks: blockingReason(record, now) ?? null,
  };
}

/** What a column says of the last preflight: `ready`, `will-fail (caa-forbids)`, `unknown`, `—`. */
export function preflightWord(view: Pick<PreflightView, "status" | "reasons"> | null): string {
  if (view === null) return "—";
  if (view.status === "will-fail" && view.reasons.length > 0) {
    return `will-fail (${view.reasons.join(", ")})`;
  }
  return view.status;
}

/**
 * The status word with a will-fail preflight beside it: `ok · will fail (caa-forbids)`,
 * `expiring · will fail (dns-zone-missing, role-missing)`. Any other preflight (none, ready,
 * unknown) leaves the word as it is.
 */
export function statusLabel(
  word: string,
  view: Pick<PreflightView, "status" | "reasons"> | null,
): string {
  if (view?.status !== "will-fail") return word;
  const reasons = view.reasons.length > 0 ? ` (${view.reasons.join(", ")})` : "";
  return `${word} · will fail${reasons}`;
}

/** The preflight filter's values: a status, or `none` for a certificate never checked. */
export const PREFLIGHT_FILTERS = [...PREFLIGHT_STATUSES, "none"] as const;
export type PreflightFilter = (typeof PREFLIGHT_FILTERS)[number];

/** The filter value a certificate's last preflight matches. */
export function preflightFilterOf(view: Pick<PreflightView, "status"> | null): PreflightFilter {
  return view === null ? "none" : view.status;
}
