import type { RunStore } from "../core/ports/runStore.js";
import type { TraceParent } from "../core/ports/telemetry.js";
import { isFinished, type Run } from "../core/runs/run.js";
import { parseRunMessage } from "../core/runs/runMessage.js";
import { ensureError, ValidationError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import { type SweepPorts, sweepWith } from "./sweep.js";

/** One delivery of a run's message, as the queue trigger sees it. */
export interface Delivery {
  /** The host's dequeueCount: 1 on the first delivery. */
  readonly dequeueCount: number;
  readonly traceContext?: TraceParent | undefined;
}

/**
 * The queue trigger's work: runs the sweep of the run the message names (trigger "queue", the
 * run's id in the history) and records it: running, then succeeded or failed with the summary.
 *
 * A sweep that ran to its end is the run's outcome, failed certificates included: it is recorded
 * and the message is done (sweeping everything again would not mend a refused renewal). Anything
 * else (an unreadable message, the run store or the settings failing) throws after noting the
 * error on the run, so the host delivers the message again and, after maxDequeueCount
 * deliveries, moves it to the poison queue (poisonRun). A repeated delivery of a finished run
 * does nothing; one of a run left "running" by a crashed attempt sweeps again, which the ledger
 * keeps from ordering anything twice.
 */
export async function processRun(
  ports: SweepPorts,
  store: RunStore,
  log: Logger,
  value: unknown,
  delivery: Delivery,
): Promise<Run> {
  const message = parseRunMessage(value);
  const run = await store.get(message.runId);
  if (!run) {
    throw new ValidationError("run message", [
      { name: "runId", message: `names run ${message.runId}, which the run store does not hold` },
    ]);
  }
  if (isFinished(run.state)) {
    log.info(`certsched run ${run.runId} is already ${run.state}; this delivery does nothing`);
    return run;
  }
  // A run whose message was sent again (settleRun) has two: the first delivery of one while
  // the other's attempt is under way would sweep beside it. A delivery after a failed or
  // crashed attempt of its own message has a dequeueCount above 1, and sweeps again.
  if (run.state === "running" && run.resentAt && delivery.dequeueCount === 1) {
    log.info(
      `certsched run ${run.runId} is already running (attempt ${run.attempts}); this copy of its message, sent again, does nothing`,
    );
    return run;
  }
  // The run decides, not the message: a message is input from whoever can write to the queue,
  // and one saying dryRun false must not make a requested dry run order certificates.
  if (message.dryRun !== run.dryRun) {
    log.warn(
      `certsched run ${run.runId}: its message says dryRun ${message.dryRun}, the run says ${run.dryRun}; the run's is used`,
    );
  }
  const started: Run = {
    ...run,
    state: "running",
    startedAt: ports.now(),
    attempts: Math.max(run.attempts + 1, delivery.dequeueCount),
    problem: undefined,
  };
  await store.save(started);
  log.info(`certsched run ${run.runId} running (attempt ${started.attempts})`);
  try {
    const summary = await sweepWith(ports, log, {
      dryRun: run.dryRun,
      trigger: "queue",
      runId: run.runId,
      traceContext: delivery.traceContext,
    });
    const finished: Run = {
      ...started,
      state: summary.failed ? "failed" : "succeeded",
      finishedAt: ports.now(),
      summary,
    };
    await store.save(finished);
    log.info(`certsched run ${run.runId} ${finished.state}`);
    return finished;
  } catch (error) {
    const problem = redact(ensureError(error).message);
    // Best effort: the poll then shows why the attempt failed; the host retries regardless.
    await store.save({ ...started, problem }).catch(() => {});
    log.error(`certsched run ${run.runId} attempt ${started.attempts} failed: ${problem}`);
    throw error;
  }
}
