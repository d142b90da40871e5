import type { InvocationContext, Timer } from "@azure/functions";
import { contextLogger } from "../../shared/api/contextLogger.js";
import { cleanupHistory as cleanup } from "../../shared/history/cleanup.js";
import { getRuntime } from "../../shared/runtime.js";

/**
 * The daily history cleanup: removes rows older than CERTSCHED_HISTORY_RETENTION (default 400
 * days). A storage failure fails the run (visible in the portal); tomorrow's run catches up.
 */
export async function cleanupHistory(_timer: Timer, context: InvocationContext): Promise<void> {
  const runtime = getRuntime();
  await cleanup(runtime.history, {
    now: runtime.now,
    retentionMs: runtime.settings.historyRetentionMs,
    log: contextLogger(context),
  });
}
