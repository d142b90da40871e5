import type { InvocationContext } from "@azure/functions";
import { getAccountPorts } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { poisonRun } from "../../shared/usecases/poisonRun.js";

/**
 * A run message the host gave up on (certsched-runs-poison): logs the alert's line and marks the
 * run failed (see poisonRun). The runtime is built after the line is logged: a broken
 * configuration is a likely reason for the poisoning itself, and must not silence the alert.
 */
export async function poisonedRenewals(
  message: unknown,
  context: InvocationContext,
): Promise<void> {
  await poisonRun(
    () => getAccountPorts().runs,
    contextLogger(context),
    message,
    () => getAccountPorts().now(),
  );
}
