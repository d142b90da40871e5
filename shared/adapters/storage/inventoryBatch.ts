import { type InventoryUpdate, mergeRecord } from "../../core/ports/inventory.js";
import { ValidationError } from "../../lib/errors.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import {
  fromInventoryRow,
  INVENTORY_PARTITION,
  inventoryRowKey,
  toInventoryRow,
} from "./rows/inventoryRow.js";
import { type LazyTable, odataLiteral, type RowKeys, statusOf } from "./table.js";
import { type RowAction, submitInBatches } from "./tableBatch.js";

/**
 * Many inventory rows at once (a sweep's due list may hold 20,000): the partition read once
 * (a page per 1,000 rows) instead of a read per row, then every merged row written in Table
 * transactions of up to 100, each row only over the version read (an insert for a new name, a
 * replace at its ETag for a stored one). A transaction another writer got in the way of (a
 * verification of one of its rows meanwhile) lands row by row through `mergeOne`, which reads
 * again; a row that still cannot be written is named, never dropped.
 */

/** From this many rows on, an upsert reads the partition and writes in transactions. */
export const BATCH_FROM = 20;

/** One row that could not be stored, and why. */
export interface WriteProblem {
  readonly name: string;
  readonly error: unknown;
}

export async function batchedUpserts(
  table: LazyTable,
  tableName: string,
  updates: readonly InventoryUpdate[],
  mergeOne: (update: InventoryUpdate) => Promise<void>,
): Promise<WriteProblem[]> {
  const client = await table.client();
  const stored = new Map<string, { row: Record<string, unknown>; etag: string }>();
  try {
    const rows = client.listEntities<Record<string, unknown>>({
      queryOptions: { filter: `PartitionKey eq ${odataLiteral(INVENTORY_PARTITION)}` },
      ...table.limit(),
    });
    for await (const row of rows) {
      if (typeof row.rowKey === "string") stored.set(row.rowKey, { row, etag: String(row.etag) });
    }
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
  }
  const problems: WriteProblem[] = [];
  const actions: RowAction[] = [];
  const byKey = new Map<string, InventoryUpdate>();
  for (const update of updates) {
    const key = inventoryRowKey(update.certificateName);
    const found = stored.get(key);
    try {
      const record = found ? fromInventoryRow(found.row, tableName) : undefined;
      // The key stands for the name (a hash, for a long one): the row must be that name's.
      if (record && record.certificateName !== update.certificateName) {
        throw new ValidationError(`inventory row ${key} in table ${tableName}`, [
          { name: "certificateName", message: "must be the certificate the row key stands for" },
        ]);
      }
      const row: Record<string, unknown> & RowKeys = {
        ...toInventoryRow(mergeRecord(record, update)),
      };
      actions.push(found ? ["update", row, "Replace", { etag: found.etag }] : ["create", row]);
      byKey.set(key, update);
    } catch (error) {
      // A stored row that fails validation is never overwritten: a person corrects it.
      problems.push({ name: update.certificateName, error });
    }
  }
  const failed = await submitInBatches(client, actions, { limit: table.limit });
  // Row by row, each read again: one changed row no longer holds back the other 99.
  const again = failed.flatMap((batch) =>
    batch.actions.map((action) => byKey.get(String(action[1].rowKey)) as InventoryUpdate),
  );
  const late = await mapWithConcurrency(again, 8, async (update) => {
    try {
      await mergeOne(update);
      return undefined;
    } catch (error) {
      return { name: update.certificateName, error } satisfies WriteProblem;
    }
  });
  return [...problems, ...late.filter((p): p is WriteProblem => p !== undefined)];
}
