import { MINUTE_MS } from "../../lib/time.js";
import type { SweepSummary } from "../renewal/summary.js";

/**
 * A run of the renewal sweep that POST /api/renewals queued (docs/runs.md): what the
 * caller polls at GET /api/renewals/{runId}. The run store keeps one per runId; the queue carries
 * only the runId and the dry-run flag.
 */

/** Where a run is: waiting on the queue, being swept, or finished either way. */
export type RunState = "queued" | "running" | "succeeded" | "failed";
export const RUN_STATES: readonly RunState[] = ["queued", "running", "succeeded", "failed"];

/** Finished states never change again: a late or repeated message leaves them as they are. */
export function isFinished(state: RunState): state is "succeeded" | "failed" {
  return state === "succeeded" || state === "failed";
}

/** How far along each state is: a run only moves forward (queued, running, finished). */
const STAGE: Readonly<Record<RunState, number>> = {
  queued: 0,
  running: 1,
  succeeded: 2,
  failed: 2,
};

/**
 * Whether a run stored in state `from` may be written in state `to`. Finished never changes; a
 * running run may be written running again (a new attempt, its problem); nothing moves back. A
 * stored state that is not one (`undefined`, a row written by hand) may be overwritten. This is
 * what keeps a late write (an attempt that lost its lease, a queue send that failed after its
 * message went out) from turning a succeeded run back into running or failed.
 */
export function advances(from: unknown, to: RunState): boolean {
  if (typeof from !== "string" || !(RUN_STATES as readonly string[]).includes(from)) return true;
  const stored = from as RunState;
  if (isFinished(stored)) return false;
  return STAGE[to] >= STAGE[stored];
}

/** The queue the HTTP function sends to and the queue trigger listens on (host.json, Bicep). */
export const RUN_QUEUE = "certsched-runs";
/** Where the host moves a message that failed maxDequeueCount times (its own naming rule). */
export const POISON_QUEUE = `${RUN_QUEUE}-poison`;

export interface Run {
  /** A UUID; also the sweep's runId in the history. */
  readonly runId: string;
  readonly state: RunState;
  readonly dryRun: boolean;
  /** Renew also what the last preflight blocks (`?force=true`); absent: false. */
  readonly force?: boolean | undefined;
  /** When POST /api/renewals accepted it. */
  readonly requestedAt: Date;
  /** Who asked: "function-key" or "entra:<name> (<object id>)", as the history's `by`. */
  readonly requestedBy: string;
  /** When the latest attempt started (the queue trigger picked the message up). */
  readonly startedAt?: Date | undefined;
  readonly finishedAt?: Date | undefined;
  /** Deliveries of its message so far (the host's dequeueCount); 0 while queued. */
  readonly attempts: number;
  /**
   * Why it failed without a sweep summary (the message was poisoned, could not be queued), or
   * the error of the latest failed attempt; redacted, one line.
   */
  readonly problem?: string | undefined;
  /** The sweep's summary, once finished (a poisoned run has none). */
  readonly summary?: SweepSummary | undefined;
  /** Results left out of `summary` because the run store could not hold them all. */
  readonly resultsOmitted?: number | undefined;
  /**
   * When its message was sent again because no delivery came within UNDELIVERED_AFTER_MS of
   * queueing it (settleRun); at most once.
   */
  readonly resentAt?: Date | undefined;
  /**
   * Failed because its message was never delivered, even when sent again: the Idempotency-Key
   * that started it then starts a fresh run.
   */
  readonly undelivered?: boolean | undefined;
  /**
   * The account it sweeps: set on every part of a fanned-out run; absent on a run of
   * a deployment without declared accounts (its one account).
   */
  readonly account?: string | undefined;
  /** The run this one is a part of (a fanned-out run's parent), when it is a part. */
  readonly parentRunId?: string | undefined;
  /**
   * A fanned-out run (several accounts): one part per account, each an ordinary run of its own
   * that sweeps that account. Such a parent is never swept itself; its state is derived from its
   * parts' whenever it is read (core/runs/parts.ts).
   */
  readonly parts?: readonly RunPart[] | undefined;
  /**
   * A part whose account's credentials have been refused in every run for at least
   * CERTSCHED_DEAD_ACCOUNT_DAYS: since when (the first refusal of the unbroken stretch).
   */
  readonly deadSince?: Date | undefined;
  /** The latest attempt's own id: of two deliveries starting a queued run at once, one wins. */
  readonly attemptId?: string | undefined;
}

/** One account's part of a fanned-out run: the account and the run that sweeps it. */
export interface RunPart {
  readonly account: string;
  readonly runId: string;
}

/**
 * host.json extensions.queues.maxDequeueCount: deliveries before the host moves a message to the
 * poison queue. The in-process queue (no storage configured) follows it too; a test holds the
 * two equal.
 */
export const MAX_DEQUEUE_COUNT = 5;

/**
 * host.json functionTimeout: the host ends an attempt this long after it started, so a run whose
 * latest attempt started longer ago than this is not being swept by it any more.
 */
export const ATTEMPT_TIMEOUT_MS = 10 * MINUTE_MS;

/** What travels on the queue: nothing secret, nothing the run store does not hold too. */
export interface RunMessage {
  readonly runId: string;
  readonly dryRun: boolean;
  /** The account the run sweeps; absent: the first account (messages of before). */
  readonly account?: string | undefined;
  /** Forced past the last preflight; absent: not (messages of before). */
  readonly force?: boolean | undefined;
}
