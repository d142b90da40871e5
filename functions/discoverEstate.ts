import { app, type InvocationContext, type Timer } from "@azure/functions";

/**
 * The estate timer: discovers every certificate each account's identity can see (Resource Graph
 * and each readable vault), keeps the report, and announces the certificates certsched does not
 * keep that entered the unmanaged-and-expiring set. The run fails, naming them, when one did.
 */
export async function discoverEstate(timer: Timer, context: InvocationContext): Promise<void> {
  // The work, and everything it needs, loads on the first call (docs/performance.md).
  const { discoverEstate: work } = await import("./handlers/discoverEstate.js");
  return work(timer, context);
}

app.timer("discoverEstate", {
  // NCRONTAB, six fields, UTC; default in samples and infra: daily at 05:40 ("0 40 5 * * *").
  schedule: "%CERTSCHED_ESTATE_SCHEDULE%",
  handler: discoverEstate,
});
