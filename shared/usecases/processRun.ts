import { randomUUID } from "node:crypto";
import type { RunStore } from "../core/ports/runStore.js";
import type { TraceParent } from "../core/ports/telemetry.js";
import { credentialsRefused, partStatus } from "../core/runs/parts.js";
import { isFinished, type Run } from "../core/runs/run.js";
import { parseRunMessage } from "../core/runs/runMessage.js";
import type { Settings } from "../core/settings.js";
import { ensureError, ValidationError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import { DAY_MS } from "../lib/time.js";
import { type SweepPorts, sweep } from "./sweep/sweep.js";

/** What a run's sweep needs, and how many days of refused credentials make an account dead. */
export type RunPorts = SweepPorts & {
  readonly settings: Pick<Settings, "deadAccountDays">;
};

/** One delivery of a run's message, as the queue trigger sees it. */
export interface Delivery {
  /** The host's dequeueCount: 1 on the first delivery. */
  readonly dequeueCount: number;
  readonly traceContext?: TraceParent | undefined;
  /** performance.now() when the invocation began: the sweep's run budget counts from it. */
  readonly startedAt?: number | undefined;
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
  ports: RunPorts | ((account: string | undefined) => RunPorts),
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
  if (run.parts) {
    // A fanned-out run is never swept itself: its parts are, each by its own message.
    log.warn(
      `certsched run ${run.runId} is a run over ${run.parts.length} account(s), swept by its parts' messages; this message does nothing`,
    );
    return run;
  }
  if (message.account !== run.account) {
    log.warn(
      `certsched run ${run.runId}: its message names account ${message.account ?? "(none)"}, the run ${run.account ?? "(none)"}; the run's is swept`,
    );
  }
  // The run decides, not the message: a message is input from whoever can write to the queue,
  // and one saying dryRun false must not make a requested dry run order certificates.
  if (message.dryRun !== run.dryRun) {
    log.warn(
      `certsched run ${run.runId}: its message says dryRun ${message.dryRun}, the run says ${run.dryRun}; the run's is used`,
    );
  }
  // The run's account, not the message's: its runtime (settings, credentials, ledger). An
  // account no longer declared is a settings problem: noted on the run, the host retries.
  let portsOf: RunPorts;
  try {
    portsOf = typeof ports === "function" ? ports(run.account) : ports;
  } catch (error) {
    const problem = redact(ensureError(error).message);
    await store
      .save({
        ...run,
        state: "running",
        attempts: Math.max(run.attempts + 1, delivery.dequeueCount),
        problem,
      })
      .catch(() => {});
    log.error(`certsched run ${run.runId} (account ${run.account}) cannot be swept: ${problem}`);
    throw error;
  }
  const started: Run = {
    ...run,
    state: "running",
    startedAt: portsOf.now(),
    attempts: Math.max(run.attempts + 1, delivery.dequeueCount),
    problem: undefined,
    attemptId: randomUUID(),
  };
  if (run.state === "queued") {
    // Two copies of a queued run's message (one sent again) may be delivered at once, in one
    // batch or on two instances: only the delivery whose attempt the store took sweeps it.
    await store.save(started, { onlyIf: "queued" });
    const stored = await store.get(run.runId);
    if (stored?.attemptId !== started.attemptId) {
      log.info(
        `certsched run ${run.runId} was started by another delivery of its message at the same moment; this one does nothing`,
      );
      return stored ?? run;
    }
  } else {
    await store.save(started);
  }
  log.info(`certsched run ${run.runId} running (attempt ${started.attempts})`);
  try {
    const summary = await sweep(portsOf, log, {
      dryRun: run.dryRun,
      // The run's, as dryRun: a message saying force must not force a run that was not.
      ...(run.force ? { force: true } : {}),
      trigger: run.requestedBy === "timer" ? "timer" : "queue",
      runId: run.runId,
      traceContext: delivery.traceContext,
      ...(delivery.startedAt === undefined ? {} : { invocationStart: delivery.startedAt }),
    });
    const finished = await withRefusals(
      {
        ...started,
        state: summary.failed ? "failed" : "succeeded",
        finishedAt: portsOf.now(),
        summary,
      },
      store,
      portsOf.settings.deadAccountDays,
    );
    await store.save(finished);
    log.info(`certsched run ${run.runId} ${finished.state}`);
    alertOnAccount(finished, log);
    return finished;
  } catch (error) {
    const problem = redact(ensureError(error).message);
    // Best effort: the poll then shows why the attempt failed; the host retries regardless.
    await store.save({ ...started, problem }).catch(() => {});
    log.error(
      `certsched run ${run.runId}${run.account ? ` (account ${run.account})` : ""} attempt ${started.attempts} failed: ${problem}`,
    );
    throw error;
  }
}

/** The start of the line an alert rule matches when an account's part fails for its account. */
export const ACCOUNT_ALERT_LINE = "certsched account alert: ";

/**
 * An account's part that failed for a reason of its account's (credentials refused, over its
 * quota): one error line naming the account and the status, for the alert rule. Other failures
 * (a certificate refused, the list down) have their own lines from the sweep.
 */
function alertOnAccount(run: Run, log: Logger): void {
  if (!run.account) return;
  const status = partStatus(run);
  if (status !== "credentials-refused" && status !== "over-quota" && status !== "dead") return;
  const why = run.summary?.listError ?? run.summary?.problems[0] ?? status;
  log.error(
    `${ACCOUNT_ALERT_LINE}account ${run.account}: ${status} in run ${run.parentRunId ?? run.runId}: ${redact(why)}`,
  );
}

/**
 * An account's part, with its account's stretch of refused credentials noted (noteRefusal): a
 * part refused again while the stretch is `days` days old or more is marked dead (deadSince).
 * A part whose list went through ends the stretch; one that could not list for another reason
 * (the service down) says nothing either way. A store that cannot note it leaves the part as it is.
 */
async function withRefusals(run: Run, store: RunStore, days: number): Promise<Run> {
  if (!run.account || !store.noteRefusal || !run.finishedAt) return run;
  const refused = credentialsRefused(run);
  if (!refused && run.summary?.listError !== undefined) return run;
  try {
    const since = await store.noteRefusal(run.account, refused ? run.finishedAt : undefined);
    if (since && run.finishedAt.getTime() - since.getTime() >= days * DAY_MS) {
      return { ...run, deadSince: since };
    }
  } catch {
    // The stretch is a status word's input, never a reason to fail the run.
  }
  return run;
}
