import { app, type InvocationContext } from "@azure/functions";

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
  // Must match RECHECK_QUEUE in shared/core/ports/vaultEvents.ts and infra/modules/storage.bicep
  // (written out: registering the functions loads nothing of shared/).
  queueName: "certsched-vault-rechecks",
  connection: "AzureWebJobsStorage",
  handler: recheckVaultConsumers,
});
