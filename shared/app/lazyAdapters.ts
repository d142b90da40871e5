import type { NotifierOptions } from "../adapters/notify/notifier.js";
import type { StorageRunQueueOptions } from "../adapters/queue/storageRunQueue.js";
import type { ConcurrencyTableOptions } from "../adapters/storage/concurrencyTable.js";
import type { LedgerRowsOptions } from "../adapters/storage/ledgerRows.js";
import type { SharedBudgetOptions } from "../adapters/storage/sharedBudget.js";
import type { TableHistoryOptions } from "../adapters/storage/tableHistory.js";
import type { TableInventoryOptions } from "../adapters/storage/tableInventory.js";
import type { TableLedgerOptions } from "../adapters/storage/tableLedger.js";
import type { TableRunStoreOptions } from "../adapters/storage/tableRunStore.js";
import type { SharedBudget } from "../core/ports/budget.js";
import type { SharedLimitStore } from "../core/ports/concurrency.js";
import type { History, Read } from "../core/ports/history.js";
import type { Inventory } from "../core/ports/inventory.js";
import type { Ledger, LedgerRecord } from "../core/ports/ledger.js";
import { type Notifier, noNotifier } from "../core/ports/notifier.js";
import type { RunQueue } from "../core/ports/runQueue.js";
import type { RunStore } from "../core/ports/runStore.js";
import type { RunMessage } from "../core/runs/run.js";
import { lazyMethods } from "../lib/lazyMethods.js";
import type { Logger } from "../lib/log.js";

/**
 * The storage and webhook adapters as the composition builds them, each module imported on the
 * port's first call rather than with the composition: a command that never reads the ledger
 * (certsched due) or posts nothing never loads a store, its row schemas or a message formatter
 * (so the CLI starts working at once). The `kind` each port reports is known up front, as callers read it synchronously.
 */

export function tableLedgerOnFirstUse(options: TableLedgerOptions): Ledger {
  return {
    kind: "table",
    ...lazyMethods(
      async () => (await import("../adapters/storage/tableLedger.js")).tableLedger(options),
      ["open", "read", "write"],
    ),
  };
}

export function tableHistoryOnFirstUse(options: TableHistoryOptions): History {
  return {
    kind: "table",
    ...lazyMethods(
      async () => (await import("../adapters/storage/tableHistory.js")).tableHistory(options),
      ["append", "events", "runs", "removeBefore", "recordRequests", "requestsSince"],
    ),
  };
}

export function tableInventoryOnFirstUse(options: TableInventoryOptions): Inventory {
  return {
    kind: "table",
    ...lazyMethods(
      async () => (await import("../adapters/storage/tableInventory.js")).tableInventory(options),
      ["upsert", "recordVerification", "recordPreflight", "recordAri", "list", "get"],
    ),
  };
}

export function sharedBudgetOnFirstUse(options: SharedBudgetOptions): SharedBudget {
  return lazyMethods(
    async () => (await import("../adapters/storage/sharedBudget.js")).sharedBudget(options),
    ["reserve", "usage"],
  );
}

export function concurrencyTableOnFirstUse(options: ConcurrencyTableOptions): SharedLimitStore {
  return lazyMethods(
    async () => (await import("../adapters/storage/concurrencyTable.js")).concurrencyTable(options),
    ["read", "write"],
  );
}

export async function listLedgerRowsOnFirstUse(
  options: LedgerRowsOptions,
): Promise<Read<LedgerRecord>> {
  return (await import("../adapters/storage/ledgerRows.js")).listLedgerRows(options);
}

/**
 * A notifier built by `load` on its first message; closing one that never sent anything loads
 * nothing (there is nothing to close).
 */
function notifierOnFirstMessage(load: () => Promise<Notifier>): Notifier {
  let loaded: Promise<Notifier> | undefined;
  const methods = lazyMethods(() => {
    loaded = load();
    return loaded;
  }, ["notify", "notifyVerification", "notifyPreflight"]);
  return {
    ...methods,
    close: async () => {
      const built = await loaded?.catch(() => undefined);
      await built?.close();
    },
  };
}

/** The webhook notifier (CERTSCHED_WEBHOOK_URL); its formatters load with the first message. */
export function notifierOnFirstUse(options: NotifierOptions): Notifier {
  return notifierOnFirstMessage(async () =>
    (await import("../adapters/notify/notifier.js")).createNotifier(options),
  );
}

/** `notifier` naming `account` in every message; no notifier stays none (nothing to load). */
export function accountNotifierOnFirstUse(
  notifier: Notifier,
  account: string,
  named: boolean,
): Notifier {
  if (notifier === noNotifier) return noNotifier;
  return notifierOnFirstMessage(async () =>
    (await import("../adapters/notify/notifier.js")).accountNotifier(notifier, account, named),
  );
}

const RUN_STORE_METHODS = [
  "get",
  "save",
  "claimKey",
  "releaseKey",
  "listUnfinished",
  "removeBefore",
  "noteRefusal",
] as const;

/** The runs of POST /api/renewals in table storage; nothing the CLI reads. */
export function tableRunStoreOnFirstUse(options: TableRunStoreOptions): RunStore {
  return {
    kind: "table",
    ...lazyMethods(
      async () => (await import("../adapters/storage/tableRunStore.js")).tableRunStore(options),
      RUN_STORE_METHODS,
    ),
  };
}

/** The runs kept in this process (no storage): one store, made on first use. */
export function memoryRunStoreOnFirstUse(): RunStore {
  return {
    kind: "memory",
    ...lazyMethods(
      async () => (await import("../adapters/storage/memory/memoryRunStore.js")).memoryRunStore(),
      RUN_STORE_METHODS,
    ),
  };
}

export function storageRunQueueOnFirstUse(options: StorageRunQueueOptions): RunQueue {
  return {
    kind: "storage",
    ...lazyMethods(
      async () => (await import("../adapters/queue/storageRunQueue.js")).storageRunQueue(options),
      ["send", "holds"],
    ),
  };
}

/**
 * The in-process queue (no storage queue), made on the first message; with none sent, nothing
 * is pending and `settled` resolves at once.
 */
export function inlineRunQueueOnFirstSend(
  deliver: (message: RunMessage, log: Logger) => Promise<void>,
): RunQueue & { settled(): Promise<void> } {
  let queue: Promise<RunQueue & { settled(): Promise<void> }> | undefined;
  const load = () => {
    queue ??= import("../adapters/queue/storageRunQueue.js").then((m) => m.inlineRunQueue(deliver));
    return queue;
  };
  return {
    kind: "inline",
    send: async (message, log) => (await load()).send(message, log),
    settled: async () => {
      await (await queue)?.settled();
    },
  };
}
