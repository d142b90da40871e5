import { app, type InvocationContext, type Timer } from "@azure/functions";
import { contextLogger } from "../shared/api/contextLogger.js";
import { sweepWith } from "../shared/api/sweepWith.js";
import { getRuntime } from "../shared/runtime.js";

/** Thrown after a sweep that must be recorded as failed, so the platform's alerts fire. */
export class SweepFailedError extends Error {
  constructor(problems: readonly string[]) {
    super(`certsched renewal sweep failed: ${problems.join("; ")}`);
    this.name = "SweepFailedError";
  }
}

/**
 * The daily sweep. Unlike a timer that swallows exceptions, this one throws after doing all
 * the work it could, whenever the list failed or a certificate failed or is stuck: a failed
 * run in the portal is how a person hears about it.
 */
export async function renewDueCertificates(
  timer: Timer,
  context: InvocationContext,
): Promise<void> {
  const log = contextLogger(context);
  if (timer?.isPastDue) log.warn("certsched sweep is running late (timer past due)");
  const summary = await sweepWith(getRuntime(), log, { traceContext: context.traceContext });
  if (summary.failed) throw new SweepFailedError(summary.problems);
}

app.timer("renewDueCertificates", {
  // NCRONTAB, six fields, UTC; default in samples and infra: daily at 03:00 ("0 0 3 * * *").
  schedule: "%CERTSCHED_RENEWAL_SCHEDULE%",
  handler: renewDueCertificates,
});
