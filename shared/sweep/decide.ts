import type { LedgerRecord } from "../ledger/ledger.js";

/**
 * Whether to renew a listed certificate now: an ordered chain of small named checks, each
 * returning a verdict or nothing (cert-manager's style). The clock is passed in.
 */
export type Verdict =
  /** Ask the service to renew. */
  | { readonly action: "renew"; readonly reason: VerdictReason; readonly message: string }
  /** Leave it: a renewal was asked for recently and the service has not finished. */
  | { readonly action: "skip"; readonly reason: VerdictReason; readonly message: string }
  /** Still due a day after the first request: report loudly; `renew` says whether to ask again. */
  | {
      readonly action: "stuck";
      readonly renew: boolean;
      readonly reason: VerdictReason;
      readonly message: string;
    };

export type VerdictReason =
  | "NewRenewal"
  | "PreviousAttemptFailed"
  | "WithinGrace"
  | "Stuck"
  | "GraceElapsed";

export interface DecisionInput {
  readonly expiryDate: Date;
  readonly record: LedgerRecord | undefined;
  readonly now: Date;
  /** CERTSCHED_RENEWAL_GRACE in ms. */
  readonly graceMs: number;
}

/** A certificate still listed this long after its first renewal request is stuck (24 h). */
export const STUCK_AFTER_MS = 24 * 3_600_000;
/** A stuck certificate is requested again at most this often (once a day). */
export const STUCK_RETRY_EVERY_MS = 24 * 3_600_000;
/**
 * Daily sweeps are not exactly 24 h apart (each reaches a certificate after a list of varying
 * latency): a day that is a few seconds short must still count as a day, or detection and the
 * daily re-request would slip to every other day.
 */
export const DAY_TOLERANCE_MS = 30 * 60_000;

type Check = (input: DecisionInput) => Verdict | undefined;

function hours(ms: number): string {
  const h = ms / 3_600_000;
  return h >= 1 ? `${h.toFixed(1)} h` : `${Math.round(ms / 60_000)} min`;
}

/** No record, or a record of an earlier certificate: a new expiry means the last renewal landed. */
const newRenewal: Check = ({ record, expiryDate }) =>
  !record || record.expiryAtRequest.getTime() !== expiryDate.getTime()
    ? { action: "renew", reason: "NewRenewal", message: "due for renewal" }
    : undefined;

/** Nothing was accepted yet in this episode (the last attempt failed): try again now. */
const previousAttemptFailed: Check = ({ record }) =>
  record && (record.lastRequestedAt === undefined || record.outcome === "failed")
    ? {
        action: "renew",
        reason: "PreviousAttemptFailed",
        message: `retrying after ${record.attempts} failed attempt(s)`,
      }
    : undefined;

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

const stuck: Check = ({ record, now, graceMs }) => {
  const first = record?.firstRequestedAt;
  const last = record?.lastRequestedAt;
  if (!first || !last) return undefined;
  const since = now.getTime() - first.getTime();
  if (since < STUCK_AFTER_MS - DAY_TOLERANCE_MS) return undefined;
  const sinceLast = now.getTime() - last.getTime();
  // The first sweep to find it stuck asks once more (a request from before it was stuck does not
  // count, unless it was within the grace); after that, at most once a day. A failed attempt
  // ordered nothing, so it is asked again at once.
  const again =
    record.outcome === "failed" ||
    sinceLast >= STUCK_RETRY_EVERY_MS - DAY_TOLERANCE_MS ||
    (last.getTime() < first.getTime() + STUCK_AFTER_MS - DAY_TOLERANCE_MS && sinceLast >= graceMs);
  return {
    action: "stuck",
    renew: again,
    reason: "Stuck",
    message: `still due ${hours(since)} after renewal was first requested (${record.attempts} attempt(s))${
      again ? "; requesting again" : "; requested again within the last day"
    }`,
  };
};

const graceElapsed: Check = ({ record, now }) => ({
  action: "renew",
  reason: "GraceElapsed",
  message: `still due ${hours(now.getTime() - (record?.lastRequestedAt?.getTime() ?? 0))} after the last request; requesting again`,
});

/**
 * The checks, in order; the first verdict wins. Stuck comes before WithinGrace: a stuck
 * certificate asked for again an hour ago is still stuck, and the run must still fail.
 */
export const CHECKS: readonly Check[] = [
  newRenewal,
  // Before PreviousAttemptFailed: a stuck certificate whose re-request failed is still stuck.
  stuck,
  previousAttemptFailed,
  withinGrace,
  graceElapsed,
];

export function decide(input: DecisionInput): Verdict {
  for (const check of CHECKS) {
    const verdict = check(input);
    if (verdict) return verdict;
  }
  // graceElapsed always answers; this keeps the type checker honest.
  throw new Error("no renewal check gave a verdict");
}
