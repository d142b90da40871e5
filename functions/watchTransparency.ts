import { app, type InvocationContext, type Timer } from "@azure/functions";

/**
 * The Certificate Transparency timer: asks the log watcher about every name certsched keeps and
 * announces each issuance nothing certsched did explains. The run fails, naming them, when one
 * appears (the portal shows a failed run; the unexpected-issuance alert fires on its line).
 */
export async function watchTransparency(timer: Timer, context: InvocationContext): Promise<void> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { watchTransparency: work } = await import("./handlers/watchTransparency.js");
  return work(timer, context);
}

app.timer("watchTransparency", {
  // NCRONTAB, six fields, UTC; default in samples and infra: every 4 hours at :17 ("0 17 */4 * * *").
  schedule: "%CERTSCHED_CT_SCHEDULE%",
  handler: watchTransparency,
});
