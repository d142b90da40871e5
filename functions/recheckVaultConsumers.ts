import { app, type InvocationContext } from "@azure/functions";
import { RECHECK_QUEUE } from "../shared/core/ports/vaultEvents.js";

/**
 * The later checks a Key Vault event started: the consumers of a vault certificate's new version
 * are read again until they serve it or the sync window (CERTSCHED_SYNC_WINDOW) ends.
 */
export async function recheckVaultConsumers(
  message: unknown,
  context: InvocationContext,
): Promise<void> {
  const { recheckVaultConsumers: work } = await import("./handlers/recheckVaultConsumers.js");
  return work(message, context);
}

app.storageQueue("recheckVaultConsumers", {
  queueName: RECHECK_QUEUE,
  connection: "AzureWebJobsStorage",
  handler: recheckVaultConsumers,
});
