import type { InvocationContext, Timer } from "@azure/functions";
import { getServices } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { SweepFailedError } from "../../shared/lib/errors.js";
import { startRun } from "../../shared/usecases/startRun.js";
import { sweep } from "../../shared/usecases/sweep/sweep.js";

/** Who the history and the run name as having asked for the timer's run. */
export const TIMER_REQUESTER = "timer";

/**
 * The daily sweep. Unlike a timer that swallows exceptions, this one throws after doing all
 * the work it could, whenever the list failed, a certificate failed, is stuck or was not
 * attempted (deadline, ledger), or the ledger was unavailable: a failed run in the portal is
 * how a person hears about it.
 *
 * With declared accounts it sweeps nothing itself: it queues a run with one part per
 * account (trigger "timer", requested by "timer") and returns, so hundreds of accounts never
 * share one invocation's 10 minutes; the queue trigger sweeps each account's part, and each
 * part's failure is logged (and alerted) by the part.
 */
export async function renewDueCertificates(
  timer: Timer,
  context: InvocationContext,
): Promise<void> {
  // The whole run, its bookkeeping included, fits in host.json's functionTimeout from here.
  const invocationStart = performance.now();
  const log = contextLogger(context);
  if (timer?.isPastDue) log.warn("certsched sweep is running late (timer past due)");
  const services = getServices();
  const runtime = services.forAccount();
  if (runtime.settings.accountsDeclared) {
    const { store, queue } = runtime.runs;
    const started = await startRun(store, queue, log, {
      dryRun: runtime.settings.dryRun,
      requestedBy: TIMER_REQUESTER,
      now: runtime.now(),
      accounts: services.accounts,
    });
    if (started.kind === "accepted") {
      log.info(
        `certsched timer: run ${started.run.runId} queued over ${services.accounts.length} account(s); see GET /api/renewals/${started.run.runId}`,
      );
    }
    return;
  }
  const summary = await sweep(runtime, log, {
    traceContext: context.traceContext,
    trigger: "timer",
    invocationStart,
  });
  if (summary.failed) throw new SweepFailedError(summary.problems);
}
