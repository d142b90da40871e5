import { app, type InvocationContext } from "@azure/functions";

/**
 * The queue trigger on certsched-runs: sweeps the run POST /api/renewals queued and records it
 * (docs/runs.md). A throw makes the host deliver the message again, up to host.json's
 * maxDequeueCount; then the message goes to certsched-runs-poison (poisonedRenewals).
 */
export async function runQueuedRenewals(
  message: unknown,
  context: InvocationContext,
): Promise<void> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { runQueuedRenewals: work } = await import("./handlers/runQueuedRenewals.js");
  return work(message, context);
}

app.storageQueue("runQueuedRenewals", {
  // Must match RUN_QUEUE in shared/core/runs/run.ts and infra/modules/storage.bicep.
  queueName: "certsched-runs",
  // The host's own storage: a connection string locally, the identity in Azure
  // (AzureWebJobsStorage__accountName; Storage Queue Data Contributor in infra/modules/access.bicep).
  connection: "AzureWebJobsStorage",
  handler: runQueuedRenewals,
});
