import type { InvocationContext, Timer } from "@azure/functions";
import { getServices } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { ensureError } from "../../shared/lib/errors.js";
import { mapWithConcurrency } from "../../shared/lib/pool.js";
import { redact } from "../../shared/lib/redact/redact.js";
import { preflightAndNotify } from "../../shared/usecases/preflightAndNotify.js";

/**
 * The preflight timer, over every account (at most CERTSCHED_ACCOUNT_CONCURRENCY at
 * once, within one deadline): the certificates within CERTSCHED_PREFLIGHT_DAYS of the renewal
 * window, or in it, checked; results stored, changes posted to the webhook, alert lines logged.
 *
 * A certificate that will fail does NOT fail the run. It is a person's job, and a person hears of
 * it where they can act: the webhook message names the check and what to do, the alert rule
 * (infra/alerts/preflight-will-fail.kql) fires under 25 days, the sweep reports it blocked. A
 * failed invocation would say the same thing every day for as long as the zone is missing, and
 * would drown the one failure only this run can report: the run itself could not be made (an
 * account's inventory unreadable, its settings wrong). That, and only that, throws, after every
 * other account was checked.
 */
export async function preflightCertificates(
  timer: Timer,
  context: InvocationContext,
): Promise<void> {
  const log = contextLogger(context);
  if (timer?.isPastDue) log.warn("certsched preflight is running late (timer past due)");
  const services = getServices();
  const { settings } = services.forAccount();
  // Within the host's functionTimeout, as the sweep: checks still running then are unknown.
  const signal = AbortSignal.timeout(settings.sweepDeadlineMs);
  const several = services.accounts.length > 1;
  const failures = await mapWithConcurrency(
    services.accounts,
    settings.accountConcurrency,
    async (account) => {
      try {
        await preflightAndNotify(services.forAccount(account), log, { scope: "window", signal });
        return undefined;
      } catch (error) {
        if (several) {
          log.error(
            `certsched preflight of account ${account} failed: ${redact(ensureError(error).message)}`,
          );
        }
        return { account, error };
      }
    },
  );
  // Each failed account was logged by name; the first one's error (typed, with its code) is the
  // invocation's failure, so the portal shows why.
  const failed = failures.find((f) => f !== undefined);
  if (failed) throw failed.error;
}
