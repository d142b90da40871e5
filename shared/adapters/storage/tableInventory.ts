import { setTimeout as sleep } from "node:timers/promises";
import type { Read } from "../../core/ports/history.js";
import {
  type Inventory,
  type InventoryRecord,
  type InventoryUpdate,
  mergeRecord,
} from "../../core/ports/inventory.js";
import { ensureError, UnstoredError, ValidationError } from "../../lib/errors.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { someNames } from "../../lib/text/names.js";
import { INVENTORY_TABLE } from "./accountTables.js";
import { BATCH_FROM, batchedUpserts, type WriteProblem } from "./inventoryBatch.js";
import { ariJson } from "./rows/ariJson.js";
import {
  fromInventoryRow,
  INVENTORY_PARTITION,
  type InventoryRow,
  inventoryRowKey,
  toInventoryRow,
  verificationJson,
} from "./rows/inventoryRow.js";
import { preflightJson } from "./rows/preflightJson.js";
import {
  failureOf,
  type LazyTable,
  lazyTable,
  odataLiteral,
  readRow,
  statusOf,
  type TableLocation,
  unavailableError,
  writeRow,
} from "./table.js";

export { INVENTORY_TABLE };

export interface TableInventoryOptions extends TableLocation {
  readonly tableName?: string;
  /** Longest wait for one storage call, in ms (CERTSCHED_HTTP_TIMEOUT); unset: no limit. */
  readonly timeoutMs?: number | undefined;
}

/** Writes in flight at once. */
const WRITE_CONCURRENCY = 8;
/**
 * Tries of one read-merge-write: another writer (a sweep and a verification at once) may write
 * the same row between our read and our conditional write. Each round one writer wins, so this
 * many writers of one row at once all land; beyond that the next sweep brings the same
 * knowledge again.
 */
const MERGE_ATTEMPTS = 8;
/** Longest pause before trying again, in ms (random below it, so racing writers spread out). */
const MERGE_JITTER_MS = 50;

/**
 * The inventory in Azure Table storage; the table is created on first write, a missing table
 * reads as an empty inventory. Storage failures throw INVENTORY_UNAVAILABLE; a stored row that
 * fails validation is named in `invalid` by `list` and is never overwritten by `upsert` (a
 * person corrects or deletes it). `upsert` writes every row it can, then throws an UnstoredError
 * naming the certificates it could not store (VALIDATION_FAILED when each was an invalid row).
 */
export function tableInventory(options: TableInventoryOptions): Inventory {
  return new TableInventory(options);
}

/**
 * The inventory as a class: its methods are fields, so that it can be spread and its methods
 * passed around like the object of functions it was.
 */
class TableInventory implements Inventory {
  readonly kind = "table";
  readonly #tableName: string;
  readonly #table: LazyTable;
  readonly #unavailable: ReturnType<typeof unavailableError>;

  constructor(options: TableInventoryOptions) {
    this.#tableName = options.tableName ?? INVENTORY_TABLE;
    this.#table = lazyTable(options, this.#tableName);
    this.#unavailable = unavailableError("INVENTORY_UNAVAILABLE", "inventory", this.#tableName);
  }

  readonly upsert = async (updates: readonly InventoryUpdate[]): Promise<void> => {
    if (updates.length === 0) return;
    try {
      await this.#table.ensureTable();
      await this.#table.client();
    } catch (error) {
      throw this.#unavailable("write", error);
    }
    const problems = await this.#writeAll(combined(updates));
    if (problems.length === 0) return;
    throw unstored(problems, this.#tableName);
  };

  readonly recordVerification: Inventory["recordVerification"] = async (
    certificateName,
    verification,
  ) => {
    try {
      // Merge touches only this property; If-Match * makes it an update, never an insert:
      // a verification of a name the inventory does not hold is not kept (as in memory).
      await (await this.#table.client()).updateEntity(
        {
          partitionKey: INVENTORY_PARTITION,
          rowKey: inventoryRowKey(certificateName),
          verification: verificationJson(verification),
        },
        "Merge",
        { etag: "*", ...this.#table.limit() },
      );
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw this.#unavailable("write", error);
    }
  };

  readonly recordPreflight: Inventory["recordPreflight"] = async (certificateName, preflight) => {
    try {
      // As recordVerification: this property only, and never an insert.
      await (await this.#table.client()).updateEntity(
        {
          partitionKey: INVENTORY_PARTITION,
          rowKey: inventoryRowKey(certificateName),
          preflight: preflightJson(preflight),
        },
        "Merge",
        { etag: "*", ...this.#table.limit() },
      );
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw this.#unavailable("write", error);
    }
  };

  readonly recordAri: NonNullable<Inventory["recordAri"]> = async (certificateName, ari) => {
    try {
      // As recordVerification: this property only, and never an insert.
      await (await this.#table.client()).updateEntity(
        {
          partitionKey: INVENTORY_PARTITION,
          rowKey: inventoryRowKey(certificateName),
          ari: ariJson(ari),
        },
        "Merge",
        { etag: "*", ...this.#table.limit() },
      );
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw this.#unavailable("write", error);
    }
  };

  readonly list = async (): Promise<Read<InventoryRecord>> => {
    const items: InventoryRecord[] = [];
    const invalid: string[] = [];
    try {
      const rows = (await this.#table.client()).listEntities<Record<string, unknown>>({
        queryOptions: { filter: `PartitionKey eq ${odataLiteral(INVENTORY_PARTITION)}` },
        ...this.#table.limit(),
      });
      for await (const row of rows) {
        try {
          items.push(fromInventoryRow(row, this.#tableName));
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          invalid.push(error.message);
        }
      }
    } catch (error) {
      if (statusOf(error) !== 404) throw this.#unavailable("read", error);
    }
    items.sort((a, b) => a.certificateName.localeCompare(b.certificateName));
    return { items, invalid };
  };

  readonly get = async (certificateName: string): Promise<InventoryRecord | undefined> => {
    try {
      return (await this.#read(certificateName))?.record;
    } catch (error) {
      // A row that fails validation is not an unavailable inventory: the caller sees which.
      if (error instanceof ValidationError) throw error;
      throw this.#unavailable("read", error);
    }
  };

  /** Writes every row it can, in batches or one by one: the rows it could not write, and why. */
  async #writeAll(rows: InventoryUpdate[]): Promise<WriteProblem[]> {
    const mergeOne = (update: InventoryUpdate) => this.#mergeOne(update);
    if (rows.length >= BATCH_FROM) {
      try {
        return await batchedUpserts(this.#table, this.#tableName, rows, mergeOne);
      } catch (error) {
        throw this.#unavailable("write", error);
      }
    }
    return (
      await mapWithConcurrency(rows, WRITE_CONCURRENCY, async (update) => {
        try {
          await mergeOne(update);
          return undefined;
        } catch (error) {
          return { name: update.certificateName, error } satisfies WriteProblem;
        }
      })
    ).filter((p): p is WriteProblem => p !== undefined);
  }

  /** Read, merge, conditional write; again when another writer got there first. */
  async #mergeOne(update: InventoryUpdate): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const stored = await this.#read(update.certificateName);
      const row = toInventoryRow(mergeRecord(stored?.record, update));
      const written = await writeRow<InventoryRow>(this.#table, row, stored?.etag);
      if (!("conflict" in written)) return;
      // Still another writer's after every try: the storage's own answer says so.
      if (attempt >= MERGE_ATTEMPTS) throw written.conflict;
      await sleep(Math.random() * MERGE_JITTER_MS);
    }
  }

  /** The stored row and its version; undefined when there is none. Storage errors thrown raw. */
  async #read(name: string): Promise<{ record: InventoryRecord; etag: string } | undefined> {
    const row = await readRow(this.#table, INVENTORY_PARTITION, inventoryRowKey(name));
    if (row === undefined) return undefined;
    const record = fromInventoryRow(row, this.#tableName);
    // The key stands for the name (a hash, for a long one): the row must be that name's.
    if (record.certificateName !== name) {
      throw new ValidationError(`inventory row ${String(row.rowKey)} in table ${this.#tableName}`, [
        { name: "certificateName", message: "must be the certificate the row key stands for" },
      ]);
    }
    return { record, etag: row.etag };
  }
}

/**
 * The error of an upsert that left `problems`: every other row is stored. The error names the
 * certificates that are not; the first storage failure, if any, says why.
 */
function unstored(problems: readonly WriteProblem[], tableName: string): UnstoredError {
  const names = problems.map((p) => p.name);
  const failed = problems.find((p) => !(p.error instanceof ValidationError));
  if (failed) {
    return new UnstoredError(
      "INVENTORY_UNAVAILABLE",
      `inventory: cannot write ${someNames(names)} to table ${tableName} (${failureOf(failed.error)})`,
      names,
      { retriable: true, cause: failed.error },
    );
  }
  // Only rows that fail validation: a person corrects or deletes them, and says which.
  const first = problems[0]?.error;
  return new UnstoredError(
    "VALIDATION_FAILED",
    `inventory: left ${someNames(names)} as stored: ${ensureError(first).message}`,
    names,
    { cause: first },
  );
}

/** Folds several updates of one certificate in one call into one, in order. */
function combined(updates: readonly InventoryUpdate[]): InventoryUpdate[] {
  const byName = new Map<string, InventoryUpdate>();
  for (const update of updates) {
    const before = byName.get(update.certificateName);
    if (!before) {
      byName.set(update.certificateName, update);
      continue;
    }
    const {
      firstSeen: _f,
      lastSeen,
      lastVerification: _v,
      lastPreflight: _p,
      ari: _a,
      ...merged
    } = mergeRecord({ ...before, firstSeen: before.seenAt, lastSeen: before.seenAt }, update);
    byName.set(update.certificateName, { ...merged, seenAt: lastSeen });
  }
  return [...byName.values()];
}
