import { app, type InvocationContext } from "@azure/functions";

/**
 * Key Vault's certificate events through Event Grid (its schema or CloudEvents 1.0): a new
 * version is confirmed with the vault and its consumers checked at once; an expiring certificate
 * nothing will renew in time raises an alert. Events for vaults no account watches are ignored.
 */
export async function keyVaultEvents(event: unknown, context: InvocationContext): Promise<void> {
  // The work loads on the first event: registering the functions stays cheap (docs/performance.md).
  const { keyVaultEvents: work } = await import("./handlers/keyVaultEvents.js");
  return work(event, context);
}

app.eventGrid("keyVaultEvents", { handler: keyVaultEvents });
