import type { InvocationContext } from "@azure/functions";
import { getServices } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { CertschedError, MAX_LISTED_PROBLEMS } from "../../shared/lib/errors.js";
import { handleVaultEvents } from "../../shared/usecases/vaultEvents/handleVaultEvents.js";

/**
 * The Event Grid trigger's handler: one delivery of Key Vault events (shared/usecases/vaultEvents).
 * Skipped and refused events are lines, never a failed invocation; events whose work failed for
 * a reason a redelivery may fix (storage, the vault unreachable) fail it, naming them, so Event
 * Grid delivers them again (its retry policy, then the dead-letter container).
 */
export async function keyVaultEvents(event: unknown, context: InvocationContext): Promise<void> {
  const log = contextLogger(context);
  const services = getServices();
  const { settings } = services.forAccount();
  const signal = AbortSignal.timeout(settings.sweepDeadlineMs);
  const run = await handleVaultEvents(services, event, log, { signal });
  if (run.failed.length === 0) return;
  const listed = run.failed.slice(0, MAX_LISTED_PROBLEMS);
  const more = run.failed.length - listed.length;
  throw new CertschedError(
    "UPSTREAM_UNREACHABLE",
    `certsched vault events failed, to be delivered again: ${listed.join(", ")}${more > 0 ? ` …and ${more} more` : ""}`,
    { retriable: true },
  );
}
