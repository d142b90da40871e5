import { app, type InvocationContext, type Timer } from "@azure/functions";

/**
 * The daily history cleanup: removes rows older than CERTSCHED_HISTORY_RETENTION (default 400
 * days). A storage failure fails the run (visible in the portal); tomorrow's run catches up.
 */
export async function cleanupHistory(_timer: Timer, context: InvocationContext): Promise<void> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { cleanupHistory: work } = await import("./handlers/cleanupHistory.js");
  return work(_timer, context);
}

app.timer("cleanupHistory", {
  // NCRONTAB, UTC: daily at 04:30, after the default 03:00 sweep. Fixed on purpose: when it runs
  // hardly matters (a day's delay only keeps rows a day longer), so no setting to get wrong.
  schedule: "0 30 4 * * *",
  handler: cleanupHistory,
});
