import type { InvocationContext, Timer } from "@azure/functions";
import { getRuntime } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { SweepFailedError } from "../../shared/lib/errors.js";
import { sweepWith } from "../../shared/usecases/sweep.js";

/**
 * The daily sweep. Unlike a timer that swallows exceptions, this one throws after doing all
 * the work it could, whenever the list failed, a certificate failed, is stuck or was not
 * attempted (deadline, ledger), or the ledger was unavailable: a failed run in the portal is
 * how a person hears about it.
 */
export async function renewDueCertificates(
  timer: Timer,
  context: InvocationContext,
): Promise<void> {
  const log = contextLogger(context);
  if (timer?.isPastDue) log.warn("certsched sweep is running late (timer past due)");
  const summary = await sweepWith(getRuntime(), log, {
    traceContext: context.traceContext,
    trigger: "timer",
  });
  if (summary.failed) throw new SweepFailedError(summary.problems);
}
