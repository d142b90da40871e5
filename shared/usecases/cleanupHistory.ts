import type { History } from "../core/ports/history.js";
import type { Logger } from "../lib/log.js";

/**
 * Removes history rows older than the retention (CERTSCHED_HISTORY_RETENTION): a row from
 * exactly `retentionMs` ago stays. Throws HISTORY_UNAVAILABLE when the storage fails, so the
 * daily cleanup shows as a failed run; the next day's cleanup catches up.
 */
export async function cleanupHistory(
  history: History,
  options: { readonly now: () => Date; readonly retentionMs: number; readonly log: Logger },
): Promise<number> {
  if (history.kind === "none") {
    options.log.info("certsched history cleanup: no storage configured, nothing to clean up");
    return 0;
  }
  const cutoff = new Date(options.now().getTime() - options.retentionMs);
  const removed = await history.removeBefore(cutoff);
  options.log.info(
    `certsched history cleanup: removed ${removed} row(s) from before ${cutoff.toISOString()}`,
  );
  return removed;
}
