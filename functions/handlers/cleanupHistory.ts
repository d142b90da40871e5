import type { InvocationContext, Timer } from "@azure/functions";
import { getServices } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { mapWithConcurrency } from "../../shared/lib/pool.js";
import { cleanupHistory as cleanup } from "../../shared/usecases/cleanupHistory.js";
import { settleUnfinished } from "../../shared/usecases/steps/settleRun.js";

/**
 * The daily history cleanup: removes rows older than CERTSCHED_HISTORY_RETENTION (default 400
 * days) from every account's history (each has its own table), queued runs' included;
 * first moves on unfinished runs that never will finish by themselves. A storage failure fails
 * the run (visible in the portal) after every account was tried; tomorrow's run catches up.
 */
export async function cleanupHistory(_timer: Timer, context: InvocationContext): Promise<void> {
  const services = getServices();
  const runtime = services.forAccount();
  const log = contextLogger(context);
  const failures = (
    await mapWithConcurrency(
      services.accounts,
      runtime.settings.accountConcurrency,
      async (account) => {
        const own = services.forAccount(account);
        try {
          await cleanup(own.history, {
            now: own.now,
            retentionMs: own.settings.historyRetentionMs,
            log,
          });
          return [];
        } catch (error) {
          return [error];
        }
      },
    )
  ).flat();
  const runs = runtime.runs;
  // Queued runs (docs/runs.md) are kept as long as the history that records them.
  const cutoff = new Date(runtime.now().getTime() - runtime.settings.historyRetentionMs);
  const removed = await runs.store.removeBefore(cutoff);
  log.info(
    `certsched run store cleanup: removed ${removed} row(s) from before ${cutoff.toISOString()}`,
  );
  // Runs nobody reads again (no GET, no repeated POST) are moved on here at the latest: a lost
  // message is sent again, or its run failed with the cause (settleRun). Never fails the pass.
  await settleUnfinished(runs, log, runtime.now());
  if (failures.length > 0) throw failures[0];
}
