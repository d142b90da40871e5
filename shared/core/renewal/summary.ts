import type { RejectedRecord } from "../ports/service.js";
import { blockedWord } from "../preflight/blocking.js";
import type { FailReason } from "../preflight/preflight.js";
import type { VerdictReason } from "./decide.js";

/** What happened to one certificate in a sweep (also the CLI's `--json` result shape). */
export type Outcome =
  | "renewal-scheduled"
  | "would-renew"
  | "skipped"
  | "failed"
  | "stuck"
  /**
   * Due, but its last preflight (no older than a day) says it will fail for a reason only a
   * person can fix: no request was spent on it. `--force` / `?force=true` renews it.
   */
  | "blocked"
  /** The sweep stopped starting renewals (its deadline, or the ledger) before this one. */
  | "not-attempted"
  /**
   * Due, but the service's request budget (CERTSCHED_SERVICE_QUOTA) had nothing left for it: the
   * run's problem line names who used it (this run's more urgent renewals, reads, other runs).
   */
  | "deferred"
  /**
   * Due, but outside every renewal window of its account (or in a freeze), and the next opening
   * comes in time: nothing was sent; `window` says when it opens (core/windows/calendar.ts).
   */
  | "waiting"
  /** Its certificate policy is `disabled`: never renewed (still verified and watched). */
  | "disabled";
export const OUTCOMES: readonly Outcome[] = [
  "renewal-scheduled",
  "would-renew",
  "skipped",
  "failed",
  "stuck",
  "blocked",
  "not-attempted",
  "deferred",
  "waiting",
  "disabled",
];

/** Why the sweep stopped starting renewals. */
export type StopReason =
  /** CERTSCHED_SWEEP_DEADLINE passed. */
  | "DeadlinePassed"
  /** The configured ledger failed: renewing on would risk ordering renewals twice. */
  | "LedgerUnavailable";

/**
 * The reason constant behind a result: the decision's, why the sweep stopped, what the ledger
 * said (another sweep won the claim; the stored row is not one to trust), or a defect in
 * certsched itself (SweepError).
 */
export type ResultReason =
  | VerdictReason
  | StopReason
  | "ClaimLost"
  | "LedgerRowInvalid"
  | "SweepError"
  /** Deferred: the request budget (CERTSCHED_SERVICE_QUOTA) left no request for it. */
  | "QuotaReached"
  /** Renewed: an earlier attempt of this same run renewed it (a queue redelivery). */
  | "EarlierAttempt"
  /** Waiting: outside every renewal window of the certificate. */
  | "OutsideWindow"
  /** Waiting: a freeze holds. */
  | "Frozen"
  /** Disabled by its certificate policy. */
  | "PolicyDisabled";

export interface CertificateResult {
  readonly certificateName: string;
  readonly id: number;
  readonly target: string;
  /** ISO-8601 UTC. */
  readonly expiryDate: string;
  readonly daysLeft: number;
  readonly outcome: Outcome;
  readonly reason: ResultReason;
  /** Why, in words: the decision's or the service's. */
  readonly detail: string;
  /** Upstream HTTP status of a failed renewal. */
  readonly status?: number;
  /** Error code of a failed renewal (see shared/lib/errors.ts). */
  readonly error?: string;
  /** What a `blocked` certificate's last preflight failed for (the first blocking reason). */
  readonly blockedBy?: FailReason;
  /**
   * Renewed (or attempted) although its last preflight blocked it, because the run was forced:
   * the reason it would have been blocked for.
   */
  readonly forcedPast?: FailReason;
  /**
   * Not asked for this sweep although its ledger row says a request went out whose answer is
   * unknown (a sweep that crashed, or one that timed out): when and by which run it was sent.
   */
  readonly answerUnknown?: AnswerUnknownRow;
  /**
   * What the account's renewal calendar said, when it declares anything: `waiting` (not sent,
   * with the next opening), `outside` (sent outside the windows, and why), `open`, `disabled`.
   */
  readonly window?: WindowNote;
}

/** A result's renewal-window note (ISO-8601 UTC instants, the local time in the window's zone). */
export interface WindowNote {
  readonly state: "open" | "waiting" | "outside" | "disabled";
  /** Why it was renewed outside its windows: its expiry, or the CA's ARI window, comes first. */
  readonly because?: "expiry" | "ari";
  /** The window (its label) of the next opening, or of the one it is in. */
  readonly window?: string;
  /** When the next opening starts (waiting, outside), or when the current one closes (open). */
  readonly opensAt?: string;
  readonly closesAt?: string;
  /** `opensAt` in the window's zone, e.g. `2026-12-08 09:00 CET`. */
  readonly opensAtLocal?: string;
  readonly timeZone?: string;
  /** The freeze holding it, when one does. */
  readonly frozen?: { readonly reason: string; readonly until: string };
  /** The last moment it could wait to (expiry less the margin, or the ARI window's end). */
  readonly mustRenewBy?: string;
  /** The policy's label, when disabled. */
  readonly policy?: string;
  /** The note in words: the same as the result's detail starts with. */
  readonly detail: string;
}

/** A ledger row "sent" or "answer-unknown", as a result names it (an answer still unknown). */
export interface AnswerUnknownRow {
  /** When that request was sent (ISO-8601 UTC). */
  readonly since: string;
  /** The run that sent it, when the row keeps one. */
  readonly runId?: string;
  /**
   * Sent an hour or more before this sweep decided: the service would have completed it, so the
   * certificate still listed was not renewed, and the run fails until it is asked again.
   */
  readonly overdue: boolean;
}

/** A certificate a sweep left waiting behind an unknown answer: the summary's `unresolved`. */
export interface UnresolvedAnswer extends AnswerUnknownRow {
  readonly name: string;
}

/** The results left waiting behind an unknown answer, in order. */
export function unresolvedAnswers(results: readonly CertificateResult[]): UnresolvedAnswer[] {
  return results.flatMap((r) =>
    r.answerUnknown ? [{ name: r.certificateName, ...r.answerUnknown }] : [],
  );
}

/** The summary's `unresolved` field: present only when a result waits behind an unknown answer. */
export function unresolvedField(results: readonly CertificateResult[]): {
  unresolved?: UnresolvedAnswer[];
} {
  const waiting = unresolvedAnswers(results);
  return waiting.length > 0 ? { unresolved: waiting } : {};
}

export interface SweepSummary {
  /**
   * The account swept; set by whoever knows it (the account's notifier fills it in
   * when the sweep did not): webhook messages name it.
   */
  readonly account?: string;
  readonly dryRun: boolean;
  /** Set when the run was forced past the last preflight (`--force`, `?force=true`). */
  readonly forced?: true;
  /** ISO-8601 UTC. */
  readonly startedAt: string;
  readonly durationMs: number;
  /** Which ledger guarded against duplicates; "unavailable" when it failed (renewals stopped). */
  readonly ledger: "table" | "memory" | "none" | "unavailable";
  /** Set when the list itself failed: nothing could be decided. */
  readonly listError?: string;
  readonly results: CertificateResult[];
  /** Records the list returned that failed validation or reuse an id; counted as failed. */
  readonly rejected: RejectedRecord[];
  readonly counts: Readonly<Record<Outcome, number>> & { readonly due: number };
  /**
   * True when the run must be reported failed: the list failed, a renewal failed, a certificate
   * is stuck, blocked by its preflight or was not attempted, the ledger was unavailable, or a
   * claim of this sweep was left unresolved.
   */
  readonly failed: boolean;
  /** Problems that made the run fail, one line each. */
  readonly problems: string[];
  /**
   * Requests certsched sent to the service in the 7 days up to the end of the run, from every
   * trigger (sweeps, CLI, HTTP API, retries each counted); absent when no storage keeps the count
   * or it could not be read.
   */
  readonly requests7d?: number;
  /** The request budget as the run saw it, when CERTSCHED_SERVICE_QUOTA is set. */
  readonly quota?: QuotaView;
  /**
   * Certificates not asked for because their last request's answer is unknown (a crashed or
   * timed-out sweep): unresolvedAnswers(results); absent when none. One `overdue` fails the run.
   */
  readonly unresolved?: UnresolvedAnswer[];
}

/** CERTSCHED_SERVICE_QUOTA at the start of the renewals: the list's requests already counted. */
export interface QuotaView {
  /** As set, e.g. "100/7d". */
  readonly limit: string;
  /** Requests counted in the window, the sweep's own list included. */
  readonly used: number;
  /** What was left for renewals (0 when none). */
  readonly remaining: number;
  /** Whether `used` reached 80 % of the limit (the run warns). */
  readonly warning: boolean;
}

export function countOutcomes(
  results: readonly CertificateResult[],
  rejected: number,
): SweepSummary["counts"] {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const r of results) counts[r.outcome] += 1;
  counts.failed += rejected;
  return { ...counts, due: results.length + rejected };
}

const STOPPED_BECAUSE: Readonly<Record<StopReason, string>> = {
  DeadlinePassed: "the sweep reached its deadline (CERTSCHED_SWEEP_DEADLINE) first",
  LedgerUnavailable: "the renewal ledger is unavailable",
};

/** The run-level problem lines the results call for, one per kind, naming the certificates. */
export function resultProblems(
  results: readonly CertificateResult[],
  rejected: readonly RejectedRecord[],
  /** Why certificates were deferred (sweepBudget.ts deferralCause); default: more urgent ones. */
  deferredCause = "the service's request budget (CERTSCHED_SERVICE_QUOTA) went to more urgent ones",
): string[] {
  const problems = rejected.map(
    (r) =>
      `record ${r.index} of the list (${r.certificateName ?? "unnamed"}) is invalid: ${r.problems
        .map((p) => `${p.name} ${p.message}`)
        .join("; ")}`,
  );
  const names = (keep: (r: CertificateResult) => boolean) =>
    results.filter(keep).map((r) => r.certificateName);
  const failed = names((r) => r.outcome === "failed");
  if (failed.length > 0) problems.push(`${failed.length} renewal(s) failed: ${failed.join(", ")}`);
  const stuck = names((r) => r.outcome === "stuck");
  if (stuck.length > 0) problems.push(`${stuck.length} certificate(s) stuck: ${stuck.join(", ")}`);
  const blocked = names((r) => r.outcome === "blocked");
  if (blocked.length > 0) {
    problems.push(
      `${blocked.length} certificate(s) blocked by their last preflight, not renewed until a person fixes the cause (or renews with --force): ${blocked.join(", ")}`,
    );
  }
  const deferred = names((r) => r.outcome === "deferred");
  if (deferred.length > 0) {
    problems.push(
      `${deferred.length} certificate(s) deferred (quota), ${deferredCause}: ${deferred.join(", ")}`,
    );
  }
  const overdue = unresolvedAnswers(results).filter((u) => u.overdue);
  if (overdue.length > 0) {
    problems.push(
      `${overdue.length} certificate(s) still due an hour or more after a renewal request whose answer is unknown (a sweep that crashed or timed out), not asked again this run: ${overdue.map((u) => `${u.name} (sent ${u.since})`).join(", ")}`,
    );
  }
  for (const reason of Object.keys(STOPPED_BECAUSE) as StopReason[]) {
    const skipped = names((r) => r.outcome === "not-attempted" && r.reason === reason);
    if (skipped.length > 0) {
      problems.push(
        `${skipped.length} certificate(s) not attempted, ${STOPPED_BECAUSE[reason]}: ${skipped.join(", ")}`,
      );
    }
  }
  return problems;
}

/** Detail of a certificate deferred for the request budget. */
export function deferredDetail(quota: QuotaView): string {
  return `CERTSCHED_SERVICE_QUOTA ${quota.limit} left ${quota.remaining} request(s) for renewals (${quota.used} used), and more urgent certificates took them; the next sweep will decide it`;
}

/** Detail of a certificate the sweep did not start. */
export function notAttemptedDetail(reason: StopReason): string {
  return `not attempted: ${STOPPED_BECAUSE[reason]}; the next sweep will decide it`;
}

/**
 * Characters JSON.stringify leaves raw that the log escaper would rewrite as `\u{XX}`, which is
 * not JSON: written as JSON's own `\uXXXX` here, the summary stays one parseable line.
 */
export const JSON_RAW_CONTROL = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The single structured summary line. */
export function summaryLine(summary: SweepSummary): string {
  return `certsched sweep summary ${JSON.stringify({
    dryRun: summary.dryRun,
    ...(summary.forced ? { forced: true } : {}),
    ledger: summary.ledger,
    failed: summary.failed,
    counts: summary.counts,
    durationMs: summary.durationMs,
    ...(summary.requests7d !== undefined ? { requests7d: summary.requests7d } : {}),
    ...(summary.quota ? { quota: summary.quota } : {}),
    ...(summary.listError ? { listError: summary.listError } : {}),
    certificates: summary.results.map((r) => ({
      name: r.certificateName,
      daysLeft: r.daysLeft,
      outcome: r.outcome,
    })),
  }).replace(JSON_RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}`;
}

/**
 * A result's detail, saying when the run was forced past the certificate's last preflight:
 * `forced past blocked (preflight: caa-forbids); <detail>`.
 */
export function forcedDetail(r: Pick<CertificateResult, "detail" | "forcedPast">): string {
  return r.forcedPast ? `forced past ${blockedWord(r.forcedPast)}; ${r.detail}` : r.detail;
}

/** One line per certificate, readable in the portal's log stream; the reason constant last. */
export function resultLine(r: CertificateResult): string {
  return `certsched certificate ${r.outcome}: ${r.certificateName} (id ${r.id}, ${r.target}) expires ${r.expiryDate} (${r.daysLeft} days left): ${forcedDetail(r)} [${r.reason}]`;
}
