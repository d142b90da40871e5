import type { Services } from "../../app/services.js";
import type { Logger } from "../../lib/log.js";

/** What one delivery of Key Vault events came to (being written). */
export interface VaultEventsRun {
  /** Items delivered (an array counts each entry). */
  readonly received: number;
  /** One line per event, escaped and bounded, in delivery order (the log's are capped). */
  readonly outcomes: readonly {
    readonly id: string | undefined;
    readonly outcome: string;
    readonly line: string;
  }[];
  /** Events whose work failed for a reason a redelivery may fix (storage, the vault unreachable). */
  readonly failed: readonly string[];
}

/** Placeholder: reads, confirms and acts on a delivery of Key Vault events (being written). */
export async function handleVaultEvents(
  _services: Services,
  _input: unknown,
  _log: Logger,
  _options: { readonly signal?: AbortSignal } = {},
): Promise<VaultEventsRun> {
  return { received: 0, outcomes: [], failed: [] };
}
