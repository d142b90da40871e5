import { app, type InvocationContext, type Timer } from "@azure/functions";
import { contextLogger } from "../shared/api/contextLogger.js";
import { sweepWith } from "../shared/api/sweepWith.js";
import { CertschedError } from "../shared/errors.js";
import { getRuntime } from "../shared/runtime.js";

/** Thrown after a sweep that must be recorded as failed, so the platform's alerts fire. */
export class SweepFailedError extends CertschedError {
  /** Why, one line each: the summary's problems. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super("SWEEP_FAILED", `certsched renewal sweep failed: ${problems.join("; ")}`);
    this.name = "SweepFailedError";
    this.problems = problems;
  }
}

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

app.timer("renewDueCertificates", {
  // NCRONTAB, six fields, UTC; default in samples and infra: daily at 03:00 ("0 0 3 * * *").
  schedule: "%CERTSCHED_RENEWAL_SCHEDULE%",
  handler: renewDueCertificates,
});
