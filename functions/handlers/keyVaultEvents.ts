import type { InvocationContext } from "@azure/functions";

/** Placeholder: the Key Vault events handler (being written). */
export async function keyVaultEvents(_event: unknown, _context: InvocationContext): Promise<void> {}
