import { app, type InvocationContext, type Timer } from "@azure/functions";

/**
 * The preflight timer: every account's certificates near their renewal window,
 * checked for what will make the renewal fail, while a person can still fix it.
 */
export async function preflightCertificates(
  timer: Timer,
  context: InvocationContext,
): Promise<void> {
  // The work, and everything it needs (the ARM SDKs included), loads on the first call:
  // registering the functions at start-up then costs little more than @azure/functions itself
  // (docs/performance.md).
  const { preflightCertificates: work } = await import("./handlers/preflightCertificates.js");
  return work(timer, context);
}

app.timer("preflightCertificates", {
  // NCRONTAB, six fields, UTC; default in samples and infra: daily at 05:30 ("0 30 5 * * *").
  schedule: "%CERTSCHED_PREFLIGHT_SCHEDULE%",
  handler: preflightCertificates,
});
