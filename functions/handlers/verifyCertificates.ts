import type { InvocationContext, Timer } from "@azure/functions";
import { getRuntime } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { VerificationFailedError } from "../../shared/lib/errors.js";
import { verifyWith } from "../../shared/usecases/verify.js";

/**
 * The verification timer (issue 12). It throws after the whole run whenever a certificate needs
 * a person: a failed run in the portal, and the verification-failed alert, is how one hears.
 */
export async function verifyCertificates(timer: Timer, context: InvocationContext): Promise<void> {
  const log = contextLogger(context);
  if (timer?.isPastDue) log.warn("certsched verification is running late (timer past due)");
  const runtime = getRuntime();
  const verification = await verifyWith(runtime, log, {
    trigger: "timer",
    // Within the host's functionTimeout, as the sweep: probes still running then count as unreachable.
    signal: AbortSignal.timeout(runtime.settings.sweepDeadlineMs),
  });
  if (verification.failed) throw new VerificationFailedError(verification.problems);
}
