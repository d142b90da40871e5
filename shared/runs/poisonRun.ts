import { ensureError } from "../errors.js";
import type { Logger } from "../log.js";
import { redact } from "../redact.js";
import { isFinished, POISON_QUEUE, type Run } from "./run.js";
import { decodeRunMessage, runIdSchema } from "./runMessage.js";
import type { RunStore } from "./runStore.js";

/**
 * The line an alert matches (infra/alerts/run-poisoned.kql): written before anything that can
 * fail, so a poisoned message is heard of even when the run store is down too.
 */
export const POISONED_LINE = "certsched run poisoned: ";

/** The run a poisoned message names, if any: the message may be the very reason it was poisoned. */
function runOf(value: unknown): { runId: string; dryRun: boolean } | undefined {
  const input = decodeRunMessage(value);
  if (typeof input !== "object" || input === null) return undefined;
  const { runId, dryRun } = input as Record<string, unknown>;
  const parsed = runIdSchema.safeParse(runId);
  return parsed.success ? { runId: parsed.data, dryRun: dryRun === true } : undefined;
}

/**
 * A message the host moved to the poison queue after maxDequeueCount failed deliveries: logs
 * the alert's line and marks its run failed, naming the last attempt's error. A run that
 * finished meanwhile keeps its outcome; a run the store has lost is recorded failed anew.
 * `storeOf` is called after the line is logged. Throws RUNS_UNAVAILABLE when the run cannot be marked
 * (the host delivers the poison message again).
 */
export async function poisonRun(
  storeOf: () => RunStore,
  log: Logger,
  value: unknown,
  now: () => Date,
): Promise<Run | undefined> {
  const named = runOf(value);
  log.error(
    `${POISONED_LINE}${named ? `run ${named.runId}` : "a message that names no run"}: its message failed every delivery and is in the queue ${POISON_QUEUE}; see docs/runs.md`,
  );
  if (!named) return undefined;
  const { runId } = named;
  // Only now: the settings the store needs may be the reason the message was poisoned.
  const store = storeOf();
  const run = await store.get(runId);
  const last = run?.problem ? `; the last attempt failed: ${run.problem}` : "";
  const problem = `the run's queue message failed every delivery${run ? ` (${run.attempts} attempt(s))` : ""} and was moved to the poison queue ${POISON_QUEUE}${last}`;
  if (run && isFinished(run.state)) {
    log.warn(
      `certsched run ${runId} is already ${run.state}; the poisoned message changes nothing`,
    );
    return run;
  }
  const at = now();
  const failed: Run = {
    runId,
    dryRun: named.dryRun,
    requestedAt: at,
    requestedBy: "unknown",
    attempts: 0,
    ...run,
    state: "failed",
    finishedAt: at,
    problem: redact(problem),
  };
  try {
    await store.save(failed);
  } catch (error) {
    log.error(
      `certsched run ${runId}: could not be marked failed: ${redact(ensureError(error).message)}`,
    );
    throw error;
  }
  return failed;
}
