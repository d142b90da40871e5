import { app, type InvocationContext } from "@azure/functions";

/**
 * The host moved a run message to certsched-runs-poison after maxDequeueCount failed deliveries
 * (host.json): this logs "certsched run poisoned: ..." (the alert infra/alerts/run-poisoned.kql)
 * and marks the run failed, so GET /api/renewals/{runId} says so (docs/runs.md).
 */
export async function poisonedRenewals(
  message: unknown,
  context: InvocationContext,
): Promise<void> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { poisonedRenewals: work } = await import("./handlers/poisonedRenewals.js");
  return work(message, context);
}

app.storageQueue("poisonedRenewals", {
  // The host's poison queue for certsched-runs: its name plus "-poison" (POISON_QUEUE).
  queueName: "certsched-runs-poison",
  connection: "AzureWebJobsStorage",
  handler: poisonedRenewals,
});
