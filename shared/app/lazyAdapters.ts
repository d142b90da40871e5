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
import { LoadOnce } from "../lib/loadOnce.js";
import type { Logger } from "../lib/log.js";

/**
 * The storage and webhook adapters as the composition builds them, each module imported on the
 * port's first call rather than with the composition: a command that never reads the ledger
 * (certsched due) or posts nothing never loads a store, its row schemas or a message formatter
 * (so the CLI starts working at once). Each is a class whose methods are written out and load
 * the adapter through one LoadOnce; the methods are fields, so a spread copy keeps them. The
 * `kind` each port reports is known up front, as callers read it synchronously.
 */

/** The renewal ledger in table storage. */
class TableLedgerOnFirstUse implements Ledger {
  readonly kind = "table" as const;
  readonly #ledger: LoadOnce<Ledger>;

  constructor(options: TableLedgerOptions) {
    this.#ledger = new LoadOnce(async () =>
      (await import("../adapters/storage/tableLedger.js")).tableLedger(options),
    );
  }

  readonly open = async () => (await this.#ledger.get()).open();
  readonly read = async (...a: Parameters<Ledger["read"]>) => (await this.#ledger.get()).read(...a);
  readonly write = async (...a: Parameters<Ledger["write"]>) =>
    (await this.#ledger.get()).write(...a);
}

export function tableLedgerOnFirstUse(options: TableLedgerOptions): Ledger {
  return new TableLedgerOnFirstUse(options);
}

/** The run history in table storage. */
class TableHistoryOnFirstUse implements History {
  readonly kind = "table" as const;
  readonly #history: LoadOnce<History>;

  constructor(options: TableHistoryOptions) {
    this.#history = new LoadOnce(async () =>
      (await import("../adapters/storage/tableHistory.js")).tableHistory(options),
    );
  }

  readonly append = async (...a: Parameters<History["append"]>) =>
    (await this.#history.get()).append(...a);
  readonly events = async (...a: Parameters<History["events"]>) =>
    (await this.#history.get()).events(...a);
  readonly runs = async (...a: Parameters<History["runs"]>) =>
    (await this.#history.get()).runs(...a);
  readonly removeBefore = async (...a: Parameters<History["removeBefore"]>) =>
    (await this.#history.get()).removeBefore(...a);
  readonly recordRequests = async (...a: Parameters<History["recordRequests"]>) =>
    (await this.#history.get()).recordRequests(...a);
  readonly requestsSince = async (...a: Parameters<History["requestsSince"]>) =>
    (await this.#history.get()).requestsSince(...a);
}

export function tableHistoryOnFirstUse(options: TableHistoryOptions): History {
  return new TableHistoryOnFirstUse(options);
}

/** The inventory in table storage. */
class TableInventoryOnFirstUse implements Inventory {
  readonly kind = "table" as const;
  readonly #inventory: LoadOnce<Inventory>;

  constructor(options: TableInventoryOptions) {
    this.#inventory = new LoadOnce(async () =>
      (await import("../adapters/storage/tableInventory.js")).tableInventory(options),
    );
  }

  readonly upsert = async (...a: Parameters<Inventory["upsert"]>) =>
    (await this.#inventory.get()).upsert(...a);
  readonly recordVerification = async (...a: Parameters<Inventory["recordVerification"]>) =>
    (await this.#inventory.get()).recordVerification(...a);
  readonly recordPreflight = async (...a: Parameters<Inventory["recordPreflight"]>) =>
    (await this.#inventory.get()).recordPreflight(...a);
  readonly recordAri = async (...a: Parameters<NonNullable<Inventory["recordAri"]>>) =>
    (await this.#inventory.get()).recordAri?.(...a);
  readonly list = async (...a: Parameters<Inventory["list"]>) =>
    (await this.#inventory.get()).list(...a);
  readonly get = async (...a: Parameters<Inventory["get"]>) =>
    (await this.#inventory.get()).get(...a);
}

export function tableInventoryOnFirstUse(options: TableInventoryOptions): Inventory {
  return new TableInventoryOnFirstUse(options);
}

/** The request budget every process shares, in the history's table. */
class SharedBudgetOnFirstUse implements SharedBudget {
  readonly #budget: LoadOnce<SharedBudget>;

  constructor(options: SharedBudgetOptions) {
    this.#budget = new LoadOnce(async () =>
      (await import("../adapters/storage/sharedBudget.js")).sharedBudget(options),
    );
  }

  readonly reserve = async (...a: Parameters<SharedBudget["reserve"]>) =>
    (await this.#budget.get()).reserve(...a);
  readonly usage = async (...a: Parameters<SharedBudget["usage"]>) =>
    (await this.#budget.get()).usage(...a);
}

export function sharedBudgetOnFirstUse(options: SharedBudgetOptions): SharedBudget {
  return new SharedBudgetOnFirstUse(options);
}

/** The adaptive limit every process of an account shares, in table `certschedconcurrency`. */
class ConcurrencyTableOnFirstUse implements SharedLimitStore {
  readonly #table: LoadOnce<SharedLimitStore>;

  constructor(options: ConcurrencyTableOptions) {
    this.#table = new LoadOnce(async () =>
      (await import("../adapters/storage/concurrencyTable.js")).concurrencyTable(options),
    );
  }

  readonly read = async () => (await this.#table.get()).read();
  readonly write = async (...a: Parameters<SharedLimitStore["write"]>) =>
    (await this.#table.get()).write(...a);
}

export function concurrencyTableOnFirstUse(options: ConcurrencyTableOptions): SharedLimitStore {
  return new ConcurrencyTableOnFirstUse(options);
}

export async function listLedgerRowsOnFirstUse(
  options: LedgerRowsOptions,
): Promise<Read<LedgerRecord>> {
  return (await import("../adapters/storage/ledgerRows.js")).listLedgerRows(options);
}

/**
 * A notifier built on its first message; closing one that never sent anything loads nothing
 * (there is nothing to close).
 */
class NotifierOnFirstMessage implements Notifier {
  readonly #notifier: LoadOnce<Notifier>;

  constructor(load: () => Promise<Notifier>) {
    this.#notifier = new LoadOnce(load);
  }

  readonly notify = async (...a: Parameters<Notifier["notify"]>) =>
    (await this.#notifier.get()).notify(...a);
  readonly notifyVerification = async (...a: Parameters<Notifier["notifyVerification"]>) =>
    (await this.#notifier.get()).notifyVerification(...a);
  readonly notifyPreflight = async (...a: Parameters<Notifier["notifyPreflight"]>) =>
    (await this.#notifier.get()).notifyPreflight(...a);
  readonly notifyIssuances = async (...a: Parameters<Notifier["notifyIssuances"]>) =>
    (await this.#notifier.get()).notifyIssuances(...a);
  readonly notifyVaultAlerts = async (...a: Parameters<Notifier["notifyVaultAlerts"]>) =>
    (await this.#notifier.get()).notifyVaultAlerts(...a);
  readonly notifyEstate = async (...a: Parameters<Notifier["notifyEstate"]>) =>
    (await this.#notifier.get()).notifyEstate(...a);
  readonly close = async () => {
    const built = await this.#notifier.begun()?.catch(() => undefined);
    await built?.close();
  };
}

/** The webhook notifier (CERTSCHED_WEBHOOK_URL); its formatters load with the first message. */
export function notifierOnFirstUse(options: NotifierOptions): Notifier {
  return new NotifierOnFirstMessage(async () =>
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
  return new NotifierOnFirstMessage(async () =>
    (await import("../adapters/notify/notifier.js")).accountNotifier(notifier, account, named),
  );
}

/** The runs of POST /api/renewals: in table storage, or kept in this process. */
class RunStoreOnFirstUse implements RunStore {
  readonly #store: LoadOnce<RunStore>;

  constructor(
    readonly kind: RunStore["kind"],
    load: () => Promise<RunStore>,
  ) {
    this.#store = new LoadOnce(load);
  }

  readonly get = async (...a: Parameters<RunStore["get"]>) => (await this.#store.get()).get(...a);
  readonly save = async (...a: Parameters<RunStore["save"]>) =>
    (await this.#store.get()).save(...a);
  readonly claimKey = async (...a: Parameters<RunStore["claimKey"]>) =>
    (await this.#store.get()).claimKey(...a);
  readonly releaseKey = async (...a: Parameters<RunStore["releaseKey"]>) =>
    (await this.#store.get()).releaseKey(...a);
  readonly listUnfinished = async (...a: Parameters<RunStore["listUnfinished"]>) =>
    (await this.#store.get()).listUnfinished(...a);
  readonly removeBefore = async (...a: Parameters<RunStore["removeBefore"]>) =>
    (await this.#store.get()).removeBefore(...a);
  readonly noteRefusal = async (...a: Parameters<NonNullable<RunStore["noteRefusal"]>>) =>
    (await this.#store.get()).noteRefusal?.(...a);
}

/** The runs of POST /api/renewals in table storage; nothing the CLI reads. */
export function tableRunStoreOnFirstUse(options: TableRunStoreOptions): RunStore {
  return new RunStoreOnFirstUse("table", async () =>
    (await import("../adapters/storage/tableRunStore.js")).tableRunStore(options),
  );
}

/** The runs kept in this process (no storage): one store, made on first use. */
export function memoryRunStoreOnFirstUse(): RunStore {
  return new RunStoreOnFirstUse("memory", async () =>
    (await import("../adapters/storage/memory/memoryRunStore.js")).memoryRunStore(),
  );
}

/** The run queue in storage (queue `certsched-runs`). */
class StorageRunQueueOnFirstUse implements RunQueue {
  readonly kind = "storage" as const;
  readonly #queue: LoadOnce<RunQueue>;

  constructor(options: StorageRunQueueOptions) {
    this.#queue = new LoadOnce(async () =>
      (await import("../adapters/queue/storageRunQueue.js")).storageRunQueue(options),
    );
  }

  readonly send = async (...a: Parameters<RunQueue["send"]>) =>
    (await this.#queue.get()).send(...a);
  readonly holds = async (...a: Parameters<NonNullable<RunQueue["holds"]>>) =>
    (await this.#queue.get()).holds?.(...a);
}

export function storageRunQueueOnFirstUse(options: StorageRunQueueOptions): RunQueue {
  return new StorageRunQueueOnFirstUse(options);
}

/** The in-process queue with what it still has to deliver. */
type InlineRunQueue = RunQueue & { settled(): Promise<void> };

/**
 * The in-process queue (no storage queue), made on the first message; with none sent, nothing
 * is pending and `settled` resolves at once.
 */
class InlineRunQueueOnFirstSend implements InlineRunQueue {
  readonly kind = "inline" as const;
  readonly #queue: LoadOnce<InlineRunQueue>;

  constructor(deliver: (message: RunMessage, log: Logger) => Promise<void>) {
    this.#queue = new LoadOnce(async () =>
      (await import("../adapters/queue/storageRunQueue.js")).inlineRunQueue(deliver),
    );
  }

  readonly send = async (...a: Parameters<RunQueue["send"]>) =>
    (await this.#queue.get()).send(...a);
  readonly settled = async () => {
    await (await this.#queue.begun())?.settled();
  };
}

export function inlineRunQueueOnFirstSend(
  deliver: (message: RunMessage, log: Logger) => Promise<void>,
): InlineRunQueue {
  return new InlineRunQueueOnFirstSend(deliver);
}
