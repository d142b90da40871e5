import type { InvocationContext } from "@azure/functions";

/** Placeholder: the consumers' recheck handler (being written). */
export async function recheckVaultConsumers(
  _message: unknown,
  _context: InvocationContext,
): Promise<void> {}
