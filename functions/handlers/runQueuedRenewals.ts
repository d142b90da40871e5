import type { InvocationContext } from "@azure/functions";
import { getServices } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { processRun } from "../../shared/usecases/processRun.js";

/** The host's dequeueCount (1 on the first delivery); 1 when the metadata lacks it. */
export function dequeueCountOf(context: InvocationContext): number {
  const value = context.triggerMetadata?.dequeueCount;
  const count = typeof value === "string" ? Number(value) : value;
  return typeof count === "number" && Number.isInteger(count) && count >= 1 ? count : 1;
}

/**
 * The queue trigger on certsched-runs: sweeps the run its message names and records it (see
 * processRun). Throws when the run could not be swept or recorded, so the host delivers the
 * message again, up to host.json's maxDequeueCount, then poisons it.
 */
export async function runQueuedRenewals(
  message: unknown,
  context: InvocationContext,
): Promise<void> {
  // The run, its bookkeeping included, fits in host.json's functionTimeout from here.
  const startedAt = performance.now();
  const services = getServices();
  // The run's account decides whose runtime sweeps it (its settings, credentials, ledger).
  await processRun(
    (account) => services.forAccount(account),
    services.app.runs.store,
    contextLogger(context),
    message,
    {
      dequeueCount: dequeueCountOf(context),
      traceContext: context.traceContext,
      startedAt,
    },
  );
}
