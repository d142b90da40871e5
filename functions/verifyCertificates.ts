import { app, type InvocationContext, type Timer } from "@azure/functions";

/**
 * The verification timer: every certificate of the inventory and every watched
 * endpoint, checked where users look. The run fails, naming the certificates, when one is
 * not-landed, not-synced, expired, mismatched, untrusted, incomplete-chain, weak, too-long, critically expiring
 * or unreachable past its grace.
 */
export async function verifyCertificates(timer: Timer, context: InvocationContext): Promise<void> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { verifyCertificates: work } = await import("./handlers/verifyCertificates.js");
  return work(timer, context);
}

app.timer("verifyCertificates", {
  // NCRONTAB, six fields, UTC; default in samples and infra: hourly on the hour ("0 0 * * * *").
  schedule: "%CERTSCHED_VERIFY_SCHEDULE%",
  handler: verifyCertificates,
});
