import type { Outcome } from "../renewal/summary.js";
import { isPoisoned } from "./exhausted.js";
import { isFinished, type Run, type RunPart, type RunState } from "./run.js";

/**
 * A fanned-out run: one part per account, each an ordinary run. The parent's state is
 * derived from its parts whenever it is read, never written by whichever part finishes last
 * (no race to lose): queued until a part starts, running while any part is not finished, then
 * succeeded when every part succeeded, else failed.
 */

/**
 * What a part shows beside its state: the state itself, or, for a failed part, why in one word:
 * - `poisoned`: its message failed every delivery (the host moved it to the poison queue);
 * - `credentials-refused`: the identity provider or the service refused the account's credentials;
 * - `dead`: credentials refused for CERTSCHED_DEAD_ACCOUNT_DAYS days in a row (see deadSince);
 * - `over-quota`: the account's request budget (its `quota`) left due renewals unsent;
 * - `missing`: the part's run is not in the run store (removed by retention).
 */
export type PartStatus =
  | RunState
  | "poisoned"
  | "credentials-refused"
  | "dead"
  | "over-quota"
  | "missing";

/** The words certsched's own errors use when credentials are refused (clientCredentials, responses). */
const REFUSED = [
  "Identity provider refused a token",
  "(the service refused certsched's credentials)",
];
/** The start of a request the account's budget kept from being sent (budgetRules.quotaMessage). */
const QUOTA_REFUSED = "request not sent: CERTSCHED_SERVICE_QUOTA";

/** Error codes of a renewal refused for the account's credentials (lib/errors/family.ts). */
const REFUSED_CODES = new Set(["TOKEN_REFUSED", "UPSTREAM_UNAUTHORIZED"]);

/**
 * Whether the part's credentials were refused: its list failed for them, or a renewal did (the
 * API key, a client secret rotated or expired, an unknown tenant).
 */
export function credentialsRefused(run: Run): boolean {
  const listError = run.summary?.listError;
  if (listError !== undefined) return REFUSED.some((words) => listError.includes(words));
  return (run.summary?.results ?? []).some(
    (r) => r.outcome === "failed" && r.error !== undefined && REFUSED_CODES.has(r.error),
  );
}

/** A part's status word (see PartStatus); `run` undefined: the store does not hold it. */
export function partStatus(run: Run | undefined): PartStatus {
  if (!run) return "missing";
  if (run.state !== "failed") return run.state;
  if (isPoisoned(run)) return "poisoned";
  if (credentialsRefused(run)) return run.deadSince ? "dead" : "credentials-refused";
  const summary = run.summary;
  if (summary?.listError?.startsWith(QUOTA_REFUSED) || (summary?.counts.deferred ?? 0) > 0) {
    return "over-quota";
  }
  return "failed";
}

/** The parent's state from its parts' (a part the store lacks counts as failed). */
export function derivedState(parts: readonly (Run | undefined)[]): RunState {
  const states = parts.map((p) => p?.state ?? "failed");
  if (states.every((s) => s === "queued")) return "queued";
  if (!states.every(isFinished)) return "running";
  return states.every((s) => s === "succeeded") ? "succeeded" : "failed";
}

/** One part as a parent shows it. */
export interface PartView {
  readonly account: string;
  readonly runId: string;
  readonly state: RunState;
  readonly status: PartStatus;
  readonly attempts: number;
  readonly counts?: Readonly<Record<Outcome, number>> & { readonly due: number };
  readonly failed?: boolean;
  readonly problem?: string;
  readonly problems?: readonly string[];
  /** When its credentials were first refused in the current unbroken stretch (status dead). */
  readonly deadSince?: string;
}

export function partView(part: RunPart, run: Run | undefined): PartView {
  if (!run) {
    return {
      ...part,
      state: "failed",
      status: "missing",
      attempts: 0,
      problem: `the part's run ${part.runId} is not in the run store (removed after the history's retention)`,
    };
  }
  const summary = run.summary;
  return {
    ...part,
    state: run.state,
    status: partStatus(run),
    attempts: run.attempts,
    ...(summary ? { counts: summary.counts, failed: summary.failed } : {}),
    ...(run.problem ? { problem: run.problem } : {}),
    ...(summary && summary.problems.length > 0 ? { problems: summary.problems } : {}),
    ...(run.deadSince ? { deadSince: run.deadSince.toISOString() } : {}),
  };
}

/**
 * The parent as read: its state derived from its parts, the earliest start and, once every part
 * finished, the latest finish; attempts summed.
 */
export function derivedParent(parent: Run, parts: readonly (Run | undefined)[]): Run {
  const state = derivedState(parts);
  const starts = parts.flatMap((p) => (p?.startedAt ? [p.startedAt.getTime()] : []));
  const ends = parts.flatMap((p) => (p?.finishedAt ? [p.finishedAt.getTime()] : []));
  return {
    ...parent,
    state,
    startedAt: starts.length > 0 ? new Date(Math.min(...starts)) : undefined,
    finishedAt: isFinished(state) && ends.length > 0 ? new Date(Math.max(...ends)) : undefined,
    attempts: parts.reduce((sum, p) => sum + (p?.attempts ?? 0), 0),
  };
}
