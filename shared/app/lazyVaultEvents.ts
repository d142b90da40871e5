import type { InlineRecheckQueue } from "../adapters/queue/inlineRecheckQueue.js";
import type { StorageRecheckQueueOptions } from "../adapters/queue/storageRecheckQueue.js";
import type { TableVaultEventsOptions } from "../adapters/storage/tableVaultEvents.js";
import type { RecheckMessage, RecheckQueue, VaultEventStore } from "../core/ports/vaultEvents.js";
import { LoadOnce } from "../lib/loadOnce.js";
import type { Logger } from "../lib/log.js";

/**
 * The Key Vault events' adapters, each module imported on first use: only the Event Grid
 * function and the recheck trigger need them, and no other function should pay for loading them.
 */

/** A store whose methods load `load` first. */
function storeOnFirstUse(
  kind: VaultEventStore["kind"],
  load: () => Promise<VaultEventStore>,
): VaultEventStore {
  const once = new LoadOnce(load);
  return {
    kind,
    claim: async (...a) => (await once.get()).claim(...a),
    complete: async (...a) => (await once.get()).complete(...a),
    release: async (...a) => (await once.get()).release(...a),
    list: async (...a) => (await once.get()).list(...a),
  };
}

/** The store in table storage (table certschedvaultevents). */
export function tableVaultEventsOnFirstUse(options: TableVaultEventsOptions): VaultEventStore {
  return storeOnFirstUse("table", async () =>
    (await import("../adapters/storage/tableVaultEvents.js")).createTableVaultEventStore(options),
  );
}

/** The store in process (no storage configured): one, made on first use. */
export function memoryVaultEventsOnFirstUse(): VaultEventStore {
  return storeOnFirstUse("memory", async () =>
    (await import("../adapters/storage/memory/memoryVaultEvents.js")).memoryVaultEventStore(),
  );
}

/** The Storage Queue certsched-vault-rechecks. */
export function storageRecheckQueueOnFirstUse(options: StorageRecheckQueueOptions): RecheckQueue {
  const once = new LoadOnce(async () =>
    (await import("../adapters/queue/storageRecheckQueue.js")).storageRecheckQueue(options),
  );
  return { kind: "storage", send: async (...a) => (await once.get()).send(...a) };
}

/** The queue in process, with what tests and closing need of it. */
export type InlineRecheck = RecheckQueue &
  Pick<InlineRecheckQueue, "kind" | "settled"> & { close(): Promise<void> };

/**
 * The queue in process (no storage queue): timers delivering to `deliver`, made on the first
 * message; with none sent, nothing is pending, `settled` resolves at once, `close` does nothing.
 */
export function inlineRecheckQueueOnFirstSend(
  deliver: (message: RecheckMessage, log: Logger) => Promise<void>,
): InlineRecheck {
  const once = new LoadOnce(async () =>
    (await import("../adapters/queue/inlineRecheckQueue.js")).inlineRecheckQueue(deliver),
  );
  return {
    kind: "inline",
    send: async (...a) => (await once.get()).send(...a),
    settled: async () => (await once.begun()?.catch(() => undefined))?.settled(),
    close: async () => (await once.begun()?.catch(() => undefined))?.close(),
  };
}
