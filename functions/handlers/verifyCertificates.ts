import type { InvocationContext, Timer } from "@azure/functions";
import { getServices } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { ensureError, VerificationFailedError } from "../../shared/lib/errors.js";
import { mapWithConcurrency } from "../../shared/lib/pool.js";
import { redact } from "../../shared/lib/redact/redact.js";
import { verifyWith } from "../../shared/usecases/verify.js";

/**
 * The verification timer, over every account (at most
 * CERTSCHED_ACCOUNT_CONCURRENCY at once, within one deadline). It throws after the whole run
 * whenever a certificate needs a person, or an account's run could not be made: a failed run
 * in the portal, and the verification-failed alert, is how one hears. One account's failure
 * never stops the others' verification.
 */
export async function verifyCertificates(timer: Timer, context: InvocationContext): Promise<void> {
  const log = contextLogger(context);
  if (timer?.isPastDue) log.warn("certsched verification is running late (timer past due)");
  const services = getServices();
  const { settings } = services.forAccount();
  // Within the host's functionTimeout, as the sweep: probes still running then count as unreachable.
  const signal = AbortSignal.timeout(settings.sweepDeadlineMs);
  const several = services.accounts.length > 1;
  const named = (account: string, line: string) => (several ? `account ${account}: ${line}` : line);
  const outcomes = await mapWithConcurrency(
    services.accounts,
    settings.accountConcurrency,
    async (account) => {
      try {
        const verification = await verifyWith(services.forAccount(account), log, {
          trigger: "timer",
          signal,
        });
        return { account, problems: verification.failed ? verification.problems : [] };
      } catch (error) {
        if (!several) throw error;
        const message = redact(ensureError(error).message);
        log.error(`certsched verification of account ${account} failed: ${message}`);
        return { account, problems: [`the run failed: ${message}`] };
      }
    },
  );
  const problems = outcomes.flatMap((o) => o.problems.map((p) => named(o.account, p)));
  if (outcomes.some((o) => o.problems.length > 0)) throw new VerificationFailedError(problems);
}
