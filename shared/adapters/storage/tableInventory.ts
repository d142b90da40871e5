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
  lazyTable,
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

/** OData string literal: quotes doubled. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The inventory in Azure Table storage; the table is created on first write, a missing table
 * reads as an empty inventory. Storage failures throw INVENTORY_UNAVAILABLE; a stored row that
 * fails validation is named in `invalid` by `list` and is never overwritten by `upsert` (a
 * person corrects or deletes it). `upsert` writes every row it can, then throws an UnstoredError
 * naming the certificates it could not store (VALIDATION_FAILED when each was an invalid row).
 */
export function tableInventory(options: TableInventoryOptions): Inventory {
  const tableName = options.tableName ?? INVENTORY_TABLE;
  const table = lazyTable(options, tableName);
  const { limit, ensureTable } = table;
  const getClient = table.client;
  const unavailable = unavailableError("INVENTORY_UNAVAILABLE", "inventory", tableName);

  /** The stored row and its version; undefined when there is none. Storage errors thrown raw. */
  const read = async (
    name: string,
  ): Promise<{ record: InventoryRecord; etag: string } | undefined> => {
    const row = await readRow(table, INVENTORY_PARTITION, inventoryRowKey(name));
    if (row === undefined) return undefined;
    const record = fromInventoryRow(row, tableName);
    // The key stands for the name (a hash, for a long one): the row must be that name's.
    if (record.certificateName !== name) {
      throw new ValidationError(`inventory row ${String(row.rowKey)} in table ${tableName}`, [
        { name: "certificateName", message: "must be the certificate the row key stands for" },
      ]);
    }
    return { record, etag: row.etag };
  };

  /** Read, merge, conditional write; again when another writer got there first. */
  const mergeOne = async (update: InventoryUpdate): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      const stored = await read(update.certificateName);
      const row = toInventoryRow(mergeRecord(stored?.record, update));
      const written = await writeRow<InventoryRow>(table, row, stored?.etag);
      if (!("conflict" in written)) return;
      // Still another writer's after every try: the storage's own answer says so.
      if (attempt >= MERGE_ATTEMPTS) throw written.conflict;
      await sleep(Math.random() * MERGE_JITTER_MS);
    }
  };

  /** Folds several updates of one certificate in one call into one, in order. */
  const combined = (updates: readonly InventoryUpdate[]): InventoryUpdate[] => {
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
  };

  return {
    kind: "table",
    async upsert(updates) {
      if (updates.length === 0) return;
      try {
        await ensureTable();
        await table.client();
      } catch (error) {
        throw unavailable("write", error);
      }
      const rows = combined(updates);
      let problems: WriteProblem[];
      if (rows.length >= BATCH_FROM) {
        try {
          problems = await batchedUpserts(table, tableName, rows, mergeOne);
        } catch (error) {
          throw unavailable("write", error);
        }
      } else {
        problems = (
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
      if (problems.length === 0) return;
      // Every other row is stored. The error names the certificates that are not (a warning
      // named the call's first three, issue 20); the first storage failure, if any, says why.
      const names = problems.map((p) => p.name);
      const failed = problems.find((p) => !(p.error instanceof ValidationError));
      if (failed) {
        throw new UnstoredError(
          "INVENTORY_UNAVAILABLE",
          `inventory: cannot write ${someNames(names)} to table ${tableName} (${failureOf(failed.error)})`,
          names,
          { retriable: true, cause: failed.error },
        );
      }
      // Only rows that fail validation: a person corrects or deletes them, and says which.
      const first = problems[0]?.error;
      throw new UnstoredError(
        "VALIDATION_FAILED",
        `inventory: left ${someNames(names)} as stored: ${ensureError(first).message}`,
        names,
        { cause: first },
      );
    },
    async recordVerification(certificateName, verification) {
      try {
        // Merge touches only this property; If-Match * makes it an update, never an insert:
        // a verification of a name the inventory does not hold is not kept (as in memory).
        await (await getClient()).updateEntity(
          {
            partitionKey: INVENTORY_PARTITION,
            rowKey: inventoryRowKey(certificateName),
            verification: verificationJson(verification),
          },
          "Merge",
          { etag: "*", ...limit() },
        );
      } catch (error) {
        if (statusOf(error) === 404) return;
        throw unavailable("write", error);
      }
    },
    async recordPreflight(certificateName, preflight) {
      try {
        // As recordVerification: this property only, and never an insert.
        await (await getClient()).updateEntity(
          {
            partitionKey: INVENTORY_PARTITION,
            rowKey: inventoryRowKey(certificateName),
            preflight: preflightJson(preflight),
          },
          "Merge",
          { etag: "*", ...limit() },
        );
      } catch (error) {
        if (statusOf(error) === 404) return;
        throw unavailable("write", error);
      }
    },
    async recordAri(certificateName, ari) {
      try {
        // As recordVerification: this property only, and never an insert.
        await (await getClient()).updateEntity(
          {
            partitionKey: INVENTORY_PARTITION,
            rowKey: inventoryRowKey(certificateName),
            ari: ariJson(ari),
          },
          "Merge",
          { etag: "*", ...limit() },
        );
      } catch (error) {
        if (statusOf(error) === 404) return;
        throw unavailable("write", error);
      }
    },
    async list(): Promise<Read<InventoryRecord>> {
      const items: InventoryRecord[] = [];
      const invalid: string[] = [];
      try {
        const rows = (await getClient()).listEntities<Record<string, unknown>>({
          queryOptions: { filter: `PartitionKey eq ${literal(INVENTORY_PARTITION)}` },
          ...limit(),
        });
        for await (const row of rows) {
          try {
            items.push(fromInventoryRow(row, tableName));
          } catch (error) {
            if (!(error instanceof ValidationError)) throw error;
            invalid.push(error.message);
          }
        }
      } catch (error) {
        if (statusOf(error) !== 404) throw unavailable("read", error);
      }
      items.sort((a, b) => a.certificateName.localeCompare(b.certificateName));
      return { items, invalid };
    },
    async get(certificateName) {
      try {
        return (await read(certificateName))?.record;
      } catch (error) {
        // A row that fails validation is not an unavailable inventory: the caller sees which.
        if (error instanceof ValidationError) throw error;
        throw unavailable("read", error);
      }
    },
  };
}
