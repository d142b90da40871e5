import type { InvocationContext, Timer } from "@azure/functions";
import { getServices } from "../../shared/app/services.js";
import { issuanceLine } from "../../shared/core/transparency/issuanceView.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { ensureError, TransparencyAlertError } from "../../shared/lib/errors.js";
import { mapWithConcurrency } from "../../shared/lib/pool.js";
import { redact } from "../../shared/lib/redact/redact.js";
import { transparencySummaryLine } from "../../shared/usecases/transparency/summaryLine.js";
import { watchTransparency as watch } from "../../shared/usecases/watchTransparency.js";

/**
 * The Certificate Transparency timer over every account (at most CERTSCHED_ACCOUNT_CONCURRENCY at
 * once, within one deadline). One account's failure never stops the others'; the run throws
 * afterwards, naming each problem, whenever an issuance is unexpected or the watcher could not
 * be asked.
 */
export async function watchTransparency(timer: Timer, context: InvocationContext): Promise<void> {
  const log = contextLogger(context);
  if (timer?.isPastDue) log.warn("certsched ct watch is running late (timer past due)");
  const services = getServices();
  const { settings } = services.forAccount();
  const signal = AbortSignal.timeout(settings.sweepDeadlineMs);
  const several = services.accounts.length > 1;
  const named = (account: string, line: string) => (several ? `account ${account}: ${line}` : line);
  const outcomes = await mapWithConcurrency(
    services.accounts,
    settings.accountConcurrency,
    async (account) => {
      try {
        const run = await watch(services.forAccount(account), log, { trigger: "timer", signal });
        log.info(transparencySummaryLine(run));
        const unexpected = run.unexpected.map((seen) => `unexpected ${issuanceLine(seen)}`);
        return { account, problems: run.failed ? [...unexpected, ...run.problems] : [] };
      } catch (error) {
        const message = redact(ensureError(error).message);
        log.error(`certsched ct watch of account ${account} failed: ${message}`);
        return { account, problems: [`the watch failed: ${message}`] };
      }
    },
  );
  const problems = outcomes.flatMap((o) => o.problems.map((p) => named(o.account, p)));
  if (problems.length > 0) throw new TransparencyAlertError(problems);
}
