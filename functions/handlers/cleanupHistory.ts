import type { InvocationContext, Timer } from "@azure/functions";
import { contextLogger } from "../../shared/api/contextLogger.js";
import { cleanupHistory as cleanup } from "../../shared/history/cleanup.js";
import { runsOf } from "../../shared/runs/runs.js";
import { getRuntime } from "../../shared/runtime.js";

/**
 * The daily history cleanup: removes rows older than CERTSCHED_HISTORY_RETENTION (default 400
 * days), queued runs' included. A storage failure fails the run (visible in the portal); tomorrow's run catches up.
 */
export async function cleanupHistory(_timer: Timer, context: InvocationContext): Promise<void> {
  const runtime = getRuntime();
  const log = contextLogger(context);
  await cleanup(runtime.history, {
    now: runtime.now,
    retentionMs: runtime.settings.historyRetentionMs,
    log,
  });
  // Queued runs (docs/runs.md) are kept as long as the history that records them.
  const cutoff = new Date(runtime.now().getTime() - runtime.settings.historyRetentionMs);
  const removed = await runsOf(runtime).store.removeBefore(cutoff);
  log.info(
    `certsched run store cleanup: removed ${removed} row(s) from before ${cutoff.toISOString()}`,
  );
}
