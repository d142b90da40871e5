import { randomUUID } from "node:crypto";
import type { RunStore } from "../core/ports/runStore.js";
import type { TraceParent } from "../core/ports/telemetry.js";
import { credentialsRefused, partStatus } from "../core/runs/parts.js";
import { isFinished, type Run, type RunMessage } from "../core/runs/run.js";
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
  const run = await storedRun(store, message);
  if (deliveryDoesNothing(run, delivery, log)) return run;
  warnOnMessage(message, run, log);
  const portsOf = await portsOfRun(ports, run, store, log, delivery);
  const attempt = await startAttempt(run, portsOf, store, log, delivery);
  if ("lostTo" in attempt) return attempt.lostTo;
  return sweepAttempt(attempt.started, portsOf, store, log, delivery);
}

/** The run the message names; a message naming none the store holds is a ValidationError. */
async function storedRun(store: RunStore, message: RunMessage): Promise<Run> {
  const run = await store.get(message.runId);
  if (!run) {
    throw new ValidationError("run message", [
      { name: "runId", message: `names run ${message.runId}, which the run store does not hold` },
    ]);
  }
  return run;
}

/** Whether this delivery must leave the run as it is (logged): finished, running, or fanned out. */
function deliveryDoesNothing(run: Run, delivery: Delivery, log: Logger): boolean {
  if (isFinished(run.state)) {
    log.info(`certsched run ${run.runId} is already ${run.state}; this delivery does nothing`);
    return true;
  }
  // A run whose message was sent again (settleRun) has two: the first delivery of one while
  // the other's attempt is under way would sweep beside it. A delivery after a failed or
  // crashed attempt of its own message has a dequeueCount above 1, and sweeps again.
  if (run.state === "running" && run.resentAt && delivery.dequeueCount === 1) {
    log.info(
      `certsched run ${run.runId} is already running (attempt ${run.attempts}); this copy of its message, sent again, does nothing`,
    );
    return true;
  }
  if (run.parts) {
    // A fanned-out run is never swept itself: its parts are, each by its own message.
    log.warn(
      `certsched run ${run.runId} is a run over ${run.parts.length} account(s), swept by its parts' messages; this message does nothing`,
    );
    return true;
  }
  return false;
}

/** Warns where the message says otherwise than its run: the run's account and dryRun are used. */
function warnOnMessage(message: RunMessage, run: Run, log: Logger): void {
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
}

/**
 * The run's account, not the message's: its runtime (settings, credentials, ledger). An
 * account no longer declared is a settings problem: noted on the run, the host retries.
 */
async function portsOfRun(
  ports: RunPorts | ((account: string | undefined) => RunPorts),
  run: Run,
  store: RunStore,
  log: Logger,
  delivery: Delivery,
): Promise<RunPorts> {
  try {
    return typeof ports === "function" ? ports(run.account) : ports;
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
}

/**
 * Records this delivery's attempt ("running"): `started`, or `lostTo` the run as stored when
 * another delivery of a queued run's message took it first.
 */
async function startAttempt(
  run: Run,
  portsOf: RunPorts,
  store: RunStore,
  log: Logger,
  delivery: Delivery,
): Promise<{ started: Run } | { lostTo: Run }> {
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
      return { lostTo: stored ?? run };
    }
  } else {
    await store.save(started);
  }
  return { started };
}

/**
 * Sweeps the started run and records it succeeded or failed with the summary; an attempt that
 * throws is noted on the run (best effort) and thrown again, so the host retries.
 */
async function sweepAttempt(
  started: Run,
  portsOf: RunPorts,
  store: RunStore,
  log: Logger,
  delivery: Delivery,
): Promise<Run> {
  log.info(`certsched run ${started.runId} running (attempt ${started.attempts})`);
  try {
    const summary = await sweep(portsOf, log, {
      dryRun: started.dryRun,
      // The run's, as dryRun: a message saying force must not force a run that was not.
      ...(started.force ? { force: true } : {}),
      trigger: started.requestedBy === "timer" ? "timer" : "queue",
      runId: started.runId,
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
    log.info(`certsched run ${started.runId} ${finished.state}`);
    alertOnAccount(finished, log);
    return finished;
  } catch (error) {
    const problem = redact(ensureError(error).message);
    // Best effort: the poll then shows why the attempt failed; the host retries regardless.
    await store.save({ ...started, problem }).catch(() => {});
    log.error(
      `certsched run ${started.runId}${started.account ? ` (account ${started.account})` : ""} attempt ${started.attempts} failed: ${problem}`,
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
