import type { InvocationContext, Timer } from "@azure/functions";
import { getServices } from "../../shared/app/services.js";
import { estateSummaryLine } from "../../shared/core/estate/lines.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { EstateAlertError, ensureError } from "../../shared/lib/errors.js";
import { mapWithConcurrency } from "../../shared/lib/pool.js";
import { redact } from "../../shared/lib/redact/redact.js";
import { boundDetail } from "../../shared/lib/text/boundDetail.js";
import { discoverEstate as discover } from "../../shared/usecases/estate/discoverEstate.js";

/**
 * The estate timer over every account (at most CERTSCHED_ACCOUNT_CONCURRENCY at once, within one
 * deadline). One account's failure never stops the others'; the run throws afterwards, naming
 * each certificate that entered the unmanaged-and-expiring set and each account that failed.
 */
export async function discoverEstate(timer: Timer, context: InvocationContext): Promise<void> {
  const log = contextLogger(context);
  if (timer?.isPastDue) log.warn("certsched estate is running late (timer past due)");
  const services = getServices();
  const { settings } = services.forAccount();
  if (!settings.estate().enabled) {
    log.info("certsched estate: CERTSCHED_ESTATE is false; nothing was discovered");
    return;
  }
  const signal = AbortSignal.timeout(settings.sweepDeadlineMs);
  const several = services.accounts.length > 1;
  const named = (account: string, line: string) => (several ? `account ${account}: ${line}` : line);
  const outcomes = await mapWithConcurrency(
    services.accounts,
    settings.accountConcurrency,
    async (account) => {
      try {
        const run = await discover(services.forAccount(account), log, {
          trigger: "timer",
          keep: true,
          signal,
        });
        log.info(estateSummaryLine(run.report));
        return run.entering.map(
          (e) => `unmanaged certificate ${boundDetail(e.certificate.name, 120)} entered the set`,
        );
      } catch (error) {
        const message = redact(ensureError(error).message);
        log.error(`certsched estate of account ${account} failed: ${message}`);
        return [`the discovery failed: ${message}`];
      }
    },
  );
  const problems = outcomes.flatMap((lines, i) =>
    lines.map((line) => named(services.accounts[i] ?? "", line)),
  );
  if (problems.length > 0) throw new EstateAlertError(problems);
}
