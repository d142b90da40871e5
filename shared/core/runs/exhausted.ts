import { redact } from "../../lib/redact/redact.js";
import { MINUTE_MS } from "../../lib/time.js";
import { ATTEMPT_TIMEOUT_MS, MAX_DEQUEUE_COUNT, POISON_QUEUE, type Run } from "./run.js";

/**
 * Whether the run store shows a run that can never finish: its message was delivered the
 * host's maxDequeueCount times (no further delivery comes: the host poisons it instead), and the
 * last attempt ended, either failing (processRun recorded its error) or by the host's function
 * timeout (a process killed mid-sweep records nothing). "failed" or "timed-out" says which;
 * undefined: the store does not confirm it, e.g. a healthy queued run, a run whose earlier
 * attempt failed and that the host will retry, or a last attempt that may still be sweeping.
 * This is what lets a message in the poison queue, which anyone who can write to the queue can
 * put there, end only runs that are really over.
 */
export function exhaustedAt(run: Run, now: Date): "failed" | "timed-out" | undefined {
  if (run.state !== "running" || run.attempts < MAX_DEQUEUE_COUNT) return undefined;
  if (run.problem !== undefined) return "failed";
  // A running row without a start was not written by an attempt: none can be sweeping it.
  if (!run.startedAt) return "timed-out";
  return now.getTime() - run.startedAt.getTime() >= ATTEMPT_TIMEOUT_MS ? "timed-out" : undefined;
}

/** The start of the problem exhaustedRun writes: how a poisoned run is told from other failures. */
const POISONED_PROBLEM = "the run's queue message failed every delivery";

/** Whether the run failed because its message was poisoned (exhaustedRun). */
export function isPoisoned(run: Run): boolean {
  return run.state === "failed" && (run.problem?.startsWith(POISONED_PROBLEM) ?? false);
}

/** The run, failed because its deliveries are spent (`how`: exhaustedAt's answer), at `at`. */
export function exhaustedRun(run: Run, how: "failed" | "timed-out", at: Date): Run {
  const last =
    how === "failed"
      ? `the last attempt failed: ${run.problem}`
      : `the last attempt did not finish within the function timeout (${ATTEMPT_TIMEOUT_MS / MINUTE_MS} min)`;
  return {
    ...run,
    state: "failed",
    finishedAt: at,
    problem: redact(
      `${POISONED_PROBLEM} (${run.attempts} attempt(s)) and was moved to the poison queue ${POISON_QUEUE}; ${last}`,
    ),
  };
}
