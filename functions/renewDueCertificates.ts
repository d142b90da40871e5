import { app, type InvocationContext, type Timer } from "@azure/functions";

/**
 * The daily sweep. Unlike a timer that swallows exceptions, this one throws after doing all
 * the work it could, whenever the list failed, a certificate failed, is stuck or was not
 * attempted (deadline, ledger), or the ledger was unavailable: a failed run in the portal is
 * how a person hears about it.
 */
export async function renewDueCertificates(
  timer: Timer,
  context: InvocationContext,
): Promise<void> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { renewDueCertificates: work } = await import("./handlers/renewDueCertificates.js");
  return work(timer, context);
}

app.timer("renewDueCertificates", {
  // NCRONTAB, six fields, UTC; default in samples and infra: daily at 03:00 ("0 0 3 * * *").
  schedule: "%CERTSCHED_RENEWAL_SCHEDULE%",
  handler: renewDueCertificates,
});
