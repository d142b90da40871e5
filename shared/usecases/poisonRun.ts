import type { RunQueue } from "../core/ports/runQueue.js";
import type { RunStore } from "../core/ports/runStore.js";
import { exhaustedAt, exhaustedRun } from "../core/runs/exhausted.js";
import { isFinished, POISON_QUEUE, type Run } from "../core/runs/run.js";
import { decodeRunMessage, runIdSchema } from "../core/runs/runMessage.js";
import { ensureError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import { settleRun } from "./steps/settleRun.js";

/**
 * The line an alert matches (infra/alerts/run-poisoned.kql): written before anything that can
 * fail, so a poisoned message is heard of even when the run store is down too.
 */
export const POISONED_LINE = "certsched run poisoned: ";

/** The run a poisoned message names, if any: the message may be the very reason it was poisoned. */
function runOf(value: unknown): { runId: string; account?: string } | undefined {
  const input = decodeRunMessage(value);
  if (typeof input !== "object" || input === null) return undefined;
  const { runId, account } = input as Record<string, unknown>;
  const parsed = runIdSchema.safeParse(runId);
  if (!parsed.success) return undefined;
  // Named in the alert's line only when it is an account name (the message is anyone's input).
  const named = typeof account === "string" && ACCOUNT_NAME.test(account) ? { account } : {};
  return { runId: parsed.data, ...named };
}

const ACCOUNT_NAME = /^[a-z0-9-]{1,40}$/;

/**
 * A message in the poison queue: logs the alert's line and, when the run store confirms that the
 * run's deliveries are all spent and the last one failed or timed out (exhaustedAt), marks the
 * run failed naming why. Anything else is left as it is, with a warning: anyone who can write to
 * the queue can put a message there, and one naming a healthy queued or retried run must not
 * end it (its real delivery would then do nothing), nor create a run the store does not hold.
 * A queued run whose message is lost is sent again (settleRun). A run that finished meanwhile
 * keeps its outcome. `runsOf` is called after the line is
 * logged. Throws RUNS_UNAVAILABLE when the run cannot be read or marked (the host delivers the
 * poison message again).
 */
export async function poisonRun(
  runsOf: () => { readonly store: RunStore; readonly queue: RunQueue },
  log: Logger,
  value: unknown,
  now: () => Date,
): Promise<Run | undefined> {
  const named = runOf(value);
  log.error(
    `${POISONED_LINE}${named ? `run ${named.runId}${named.account ? ` (account ${named.account})` : ""}` : "a message that names no run"}: its message failed every delivery and is in the queue ${POISON_QUEUE}; see docs/runs.md`,
  );
  if (!named) return undefined;
  const { runId } = named;
  // Only now: the settings the store needs may be the reason the message was poisoned.
  const { store, queue } = runsOf();
  const run = await store.get(runId);
  if (!run) {
    log.warn(
      `certsched run ${runId}: a poisoned message names it, but the run store holds no such run; nothing recorded`,
    );
    return undefined;
  }
  if (isFinished(run.state)) {
    log.warn(
      `certsched run ${runId} is already ${run.state}; the poisoned message changes nothing`,
    );
    return run;
  }
  const at = now();
  const how = exhaustedAt(run, at);
  if (!how && run.state === "queued") {
    // Not delivered at all (the host never poisons such a run): if its message is lost, it is
    // sent again or failed as undelivered, as a GET of it would.
    const settled = await settleRun(run, { store, queue, log, now: at });
    if (settled !== run) return settled;
  }
  if (!how) {
    log.warn(
      `certsched run ${runId}: a poisoned message names it, but the run store does not confirm that its deliveries failed (${run.state}, ${run.attempts} delivery(ies)${run.problem ? ", the host retries the last" : ""}); the run is left as it is`,
    );
    return run;
  }
  const failed = exhaustedRun(run, how, at);
  try {
    // Only over the running run read above: a delivery that finished it meanwhile wins.
    await store.save(failed, { onlyIf: "running" });
  } catch (error) {
    log.error(
      `certsched run ${runId}: could not be marked failed: ${redact(ensureError(error).message)}`,
    );
    throw error;
  }
  return failed;
}
