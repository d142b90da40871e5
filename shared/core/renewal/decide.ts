import { HOUR_MS, MINUTE_MS } from "../../lib/time.js";
import type { LedgerRecord } from "../ports/ledger.js";
import { PREFLIGHT_ADVICE } from "../preflight/advice.js";
import { blockedWord, blockingReason } from "../preflight/blocking.js";
import type { FailReason, PreflightResult } from "../preflight/preflight.js";

/**
 * Whether to renew a listed certificate now: an ordered chain of small named checks, each
 * returning a verdict or nothing (cert-manager's style). The clock is passed in.
 */
export type Verdict =
  /** Ask the service to renew (`forcedPast`: although the last preflight blocks it). */
  | {
      readonly action: "renew";
      readonly reason: VerdictReason;
      readonly message: string;
      readonly forcedPast?: FailReason;
    }
  /** Leave it: a renewal was asked for recently, or another sweep is about to ask. */
  | { readonly action: "skip"; readonly reason: VerdictReason; readonly message: string }
  /** Still due a day after the first request: report loudly; `renew` says whether to ask again. */
  | {
      readonly action: "stuck";
      readonly renew: boolean;
      /** Which clause asks again (undefined: not asked again this sweep). */
      readonly askAgain: AskAgainReason | undefined;
      readonly reason: VerdictReason;
      readonly message: string;
      readonly forcedPast?: FailReason;
    }
  /**
   * Would be asked for, but its last preflight says the request would be refused for a reason
   * only a person can fix: nothing is sent, nothing claimed.
   */
  | {
      readonly action: "blocked";
      readonly reason: "PreflightBlocked";
      readonly blockedBy: FailReason;
      readonly message: string;
    };

export type VerdictReason =
  | "NewRenewal"
  | "ClaimHeld"
  | "Stuck"
  | "PreviousAttemptFailed"
  | "UnsentClaimExpired"
  | "AnswerUnknown"
  | "AnswerUnknownExpired"
  | "WithinGrace"
  | "GraceElapsed"
  | "PreflightBlocked";

export interface DecisionInput {
  readonly expiryDate: Date;
  readonly record: LedgerRecord | undefined;
  readonly now: Date;
  /** CERTSCHED_RENEWAL_GRACE in ms. */
  readonly graceMs: number;
  /** The certificate's last preflight (inventory), when one is kept: it may block the request. */
  readonly preflight?: Pick<PreflightResult, "checks" | "at" | "status"> | undefined;
  /** Renew even when the last preflight blocks it (`--force`, `?force=true`). */
  readonly force?: boolean | undefined;
  /** CERTSCHED_CLAIM_LEASE in ms; default CLAIM_LEASE_MS. */
  readonly claimLeaseMs?: number | undefined;
}

/** A certificate still listed this long after its first renewal request is stuck (24 h). */
export const STUCK_AFTER_MS = 24 * HOUR_MS;
/** A stuck certificate is requested again at most this often (once a day). */
export const STUCK_RETRY_EVERY_MS = 24 * HOUR_MS;
/**
 * Daily sweeps are not exactly 24 h apart (each reaches a certificate after a list of varying
 * latency): a day that is a few seconds short must still count as a day, or detection and the
 * daily re-request would slip to every other day.
 */
export const DAY_TOLERANCE_MS = 30 * MINUTE_MS;
/**
 * How long a claim ("claimed", not yet sent) keeps other sweeps away (1 min). Between claim and
 * send a sweep makes one ledger write; a claim older than this was abandoned (the sweep died), so
 * nothing was sent and the next sweep renews at once. Safety does not rest on it: a sweep sends
 * only after its conditional "sent" write wins, and a takeover makes that write lose.
 */
export const CLAIM_LEASE_MS = MINUTE_MS;
/**
 * The public renew completes within an hour (spec 4.4): still listed with the same expiry this
 * long after a request whose answer is unknown, a certificate was not renewed by it and is asked
 * again (AnswerUnknownExpired; sooner when the grace is shorter). Before that, nothing tells
 * "scheduled, not done yet" from "never arrived": Get Certificate shows the list's expiry.
 */
export const ANSWER_WINDOW_MS = HOUR_MS;
/** How long an unknown answer is waited for: the hour, or the grace when it is shorter. */
export const answerWindowMs = (graceMs: number): number => Math.min(graceMs, ANSWER_WINDOW_MS);

type Check = (input: DecisionInput) => Exclude<Verdict, { action: "blocked" }> | undefined;

function hours(ms: number): string {
  const h = ms / HOUR_MS;
  return h >= 1 ? `${h.toFixed(1)} h` : `${Math.round(ms / MINUTE_MS)} min`;
}

/** No record, or a record of an earlier certificate: a new expiry means the last renewal landed. */
const newRenewal: Check = ({ record, expiryDate }) =>
  !record || record.expiryAtRequest.getTime() !== expiryDate.getTime()
    ? { action: "renew", reason: "NewRenewal", message: "due for renewal" }
    : undefined;

/** Another sweep claimed it moments ago and is about to send: leave it to that sweep. */
const claimHeld: Check = ({ record, now, claimLeaseMs = CLAIM_LEASE_MS }) => {
  if (record?.outcome !== "claimed" || !record.claimedAt) return undefined;
  const since = now.getTime() - record.claimedAt.getTime();
  return since < claimLeaseMs
    ? {
        action: "skip",
        reason: "ClaimHeld",
        message: `another sweep claimed it ${Math.max(0, Math.round(since / 1000))} s ago and is renewing it`,
      }
    : undefined;
};

/** What the clauses of "ask a stuck certificate again" look at. */
interface StuckContext {
  readonly record: LedgerRecord;
  readonly first: Date;
  readonly last: Date;
  readonly sinceLast: number;
  readonly graceMs: number;
}

/** Why a stuck certificate is asked for again now. */
export type AskAgainReason =
  | "LastAttemptFailed"
  | "UnsentClaimAbandoned"
  | "DailyRetry"
  | "FirstFoundStuck";

/**
 * The clauses, any of which asks a stuck certificate again; none: wait (at most once a day).
 * Exported for the table tests.
 */
export const ASK_AGAIN: readonly {
  readonly reason: AskAgainReason;
  readonly holds: (c: StuckContext) => boolean;
}[] = [
  // A failed attempt ordered nothing.
  { reason: "LastAttemptFailed", holds: ({ record }) => record.outcome === "failed" },
  // A sweep decided to ask again and died before sending (its lease has run out: claimHeld
  // comes first in the chain); `last` still dates from before, so the other clauses would wait.
  { reason: "UnsentClaimAbandoned", holds: ({ record }) => record.outcome === "claimed" },
  {
    reason: "DailyRetry",
    holds: ({ sinceLast }) => sinceLast >= STUCK_RETRY_EVERY_MS - DAY_TOLERANCE_MS,
  },
  // The first sweep to find it stuck asks once more: a request from before it was stuck does
  // not count, unless it was within the grace.
  {
    reason: "FirstFoundStuck",
    holds: ({ first, last, sinceLast, graceMs }) =>
      last.getTime() < first.getTime() + STUCK_AFTER_MS - DAY_TOLERANCE_MS && sinceLast >= graceMs,
  },
];

const stuck: Check = ({ record, now, graceMs }) => {
  const first = record?.firstRequestedAt;
  const last = record?.lastRequestedAt;
  if (!first || !last) return undefined;
  const since = now.getTime() - first.getTime();
  if (since < STUCK_AFTER_MS - DAY_TOLERANCE_MS) return undefined;
  const context = { record, first, last, sinceLast: now.getTime() - last.getTime(), graceMs };
  const askAgain = ASK_AGAIN.find((clause) => clause.holds(context))?.reason;
  return {
    action: "stuck",
    renew: askAgain !== undefined,
    askAgain,
    reason: "Stuck",
    message: `still due ${hours(since)} after renewal was first requested (${record.attempts} attempt(s))${
      askAgain ? "; requesting again" : "; requested again within the last day"
    }`,
  };
};

/** Nothing was accepted in the last attempt (the service refused, or it failed): try again now. */
const previousAttemptFailed: Check = ({ record }) =>
  record?.outcome === "failed"
    ? {
        action: "renew",
        reason: "PreviousAttemptFailed",
        message: `retrying after ${record.attempts} failed attempt(s)`,
      }
    : undefined;

/** A claim past its lease was never sent (claimHeld took the live ones): renew at once. */
const unsentClaimExpired: Check = ({ record, now }) =>
  record?.outcome === "claimed"
    ? {
        action: "renew",
        reason: "UnsentClaimExpired",
        message: `an earlier sweep claimed it ${hours(now.getTime() - (record.claimedAt?.getTime() ?? 0))} ago and stopped before sending the renewal; renewing now`,
      }
    : undefined;

/** Whether a row says a request went out and its answer is unknown (a crash, a timeout). */
export const answerUnknownRow = (record: LedgerRecord | undefined): boolean =>
  (record?.outcome === "sent" || record?.outcome === "answer-unknown") && !!record.lastRequestedAt;

/** Sent, answer unknown: wait answerWindowMs; then, still the same expiry, it was not renewed. */
const answerUnknown: Check = ({ record, now, graceMs }) => {
  if (!answerUnknownRow(record)) return undefined;
  const since = now.getTime() - (record?.lastRequestedAt?.getTime() ?? 0);
  const window = answerWindowMs(graceMs);
  return since < window
    ? {
        action: "skip",
        reason: "AnswerUnknown",
        message: `renewal sent ${hours(since)} ago without a recorded answer; the service may have scheduled it (it completes within an hour), so it is asked again only if still due ${hours(window)} after the request`,
      }
    : {
        action: "renew",
        reason: "AnswerUnknownExpired",
        message: `renewal sent ${hours(since)} ago without a recorded answer, and still due with the same expiry although the service completes within an hour: it was not renewed; requesting again`,
      };
};

const withinGrace: Check = ({ record, now, graceMs }) => {
  const last = record?.lastRequestedAt;
  if (!last) return undefined;
  const since = now.getTime() - last.getTime();
  return since < graceMs
    ? {
        action: "skip",
        reason: "WithinGrace",
        message: `renewal requested ${hours(since)} ago; the service completes within an hour`,
      }
    : undefined;
};

const graceElapsed: Check = ({ record, now }) => {
  const last = record?.lastRequestedAt;
  return {
    action: "renew",
    reason: "GraceElapsed",
    message: last
      ? `still due ${hours(now.getTime() - last.getTime())} after the last request; requesting again`
      : "still due; requesting again",
  };
};

/**
 * The checks, in order; the first verdict wins. A live claim comes before everything but a new
 * expiry: the sweep holding it decides. Stuck comes before WithinGrace: a stuck certificate
 * asked for again an hour ago is still stuck, and the run must still fail.
 */
export const CHECKS: readonly Check[] = [
  newRenewal,
  claimHeld,
  // Before PreviousAttemptFailed: a stuck certificate whose re-request failed is still stuck.
  stuck,
  previousAttemptFailed,
  unsentClaimExpired,
  answerUnknown,
  withinGrace,
  graceElapsed,
];

/** The detail of a blocked certificate: `blocked (preflight: caa-forbids): <what to do>`. */
export function blockedDetail(reason: FailReason): string {
  return `${blockedWord(reason)}: ${PREFLIGHT_ADVICE[reason]}`;
}

/**
 * The verdict of the chain, then the last preflight: only a verdict that would send a request is
 * blocked (a skipped certificate spends nothing; a stuck one not asked again stays stuck).
 * Forced, the request goes out and the verdict says what it was forced past.
 */
export function decide(input: DecisionInput): Verdict {
  const verdict = chain(input);
  const sends = verdict.action === "renew" || (verdict.action === "stuck" && verdict.renew);
  if (!sends) return verdict;
  const blockedBy = blockingReason(input.preflight, input.now);
  if (blockedBy === undefined) return verdict;
  if (input.force) return { ...verdict, forcedPast: blockedBy };
  return {
    action: "blocked",
    reason: "PreflightBlocked",
    blockedBy,
    message: blockedDetail(blockedBy),
  };
}

function chain(input: DecisionInput): Exclude<Verdict, { action: "blocked" }> {
  for (const check of CHECKS) {
    const verdict = check(input);
    if (verdict) return verdict;
  }
  // graceElapsed always answers; this keeps the type checker honest.
  throw new Error("no renewal check gave a verdict");
}
