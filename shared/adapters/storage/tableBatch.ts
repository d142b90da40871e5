import type { TableClient, TableEntity, TransactionAction } from "@azure/data-tables";
import { mapWithConcurrency } from "../../lib/pool.js";
import type { RowKeys } from "./table.js";

/**
 * Many rows written as Table transactions: one request per batch of up to
 * BATCH_ACTIONS rows of one partition, BATCHES_IN_FLIGHT batches at once. Azure's limits: 100
 * actions and 4 MiB per transaction, every action of it in one PartitionKey; a transaction lands
 * whole or not at all.
 */

/** Actions in one transaction: Azure's limit. */
export const BATCH_ACTIONS = 100;
/**
 * Bytes of entities in one transaction, estimated as their JSON: under Azure's 4 MiB with room
 * for the multipart framing and headers around each action.
 */
export const BATCH_BYTES = 3 * 1024 * 1024;
/** Transactions in flight at once. */
export const BATCHES_IN_FLIGHT = 6;

/** One row to write: what to do with it, in @azure/data-tables' words. */
export type RowAction = TransactionAction;

/** The rows of one transaction that did not land, and the storage's answer. */
export interface FailedBatch {
  readonly actions: readonly RowAction[];
  readonly error: unknown;
}

const entityOf = (action: RowAction): TableEntity & RowKeys => action[1] as TableEntity & RowKeys;

/**
 * The actions in transactions: grouped by PartitionKey (in the order each partition first
 * appears), then cut at BATCH_ACTIONS actions or BATCH_BYTES of JSON, whichever comes first.
 */
export function batchesOf(actions: readonly RowAction[]): RowAction[][] {
  const byPartition = new Map<string, RowAction[]>();
  for (const action of actions) {
    const key = entityOf(action).partitionKey;
    const group = byPartition.get(key);
    if (group) group.push(action);
    else byPartition.set(key, [action]);
  }
  const batches: RowAction[][] = [];
  for (const group of byPartition.values()) {
    let batch: RowAction[] = [];
    let bytes = 0;
    for (const action of group) {
      const size = Buffer.byteLength(JSON.stringify(entityOf(action)));
      if (batch.length > 0 && (batch.length >= BATCH_ACTIONS || bytes + size > BATCH_BYTES)) {
        batches.push(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(action);
      bytes += size;
    }
    if (batch.length > 0) batches.push(batch);
  }
  return batches;
}

export interface SubmitOptions {
  /** Options for one storage call (a fresh timeout signal each). */
  readonly limit: () => { abortSignal?: AbortSignal };
  /** Transactions in flight at once (default BATCHES_IN_FLIGHT). */
  readonly concurrency?: number;
  /**
   * Whether a failed transaction is worth one more try (default: any failure but a 409 or 412,
   * which mean another writer's row: trying the same actions again meets the same answer).
   */
  readonly retriable?: (error: unknown) => boolean;
}

const conflictStatus = (error: unknown) => {
  const status = (error as { statusCode?: number } | null)?.statusCode;
  return status === 409 || status === 412;
};

/**
 * Submits the actions in transactions (batchesOf), a bounded number at once; a failed
 * transaction is tried once more when `retriable` says so. Resolves with the transactions that
 * did not land (empty: every row did); never throws for one, so the caller names their rows.
 */
export async function submitInBatches(
  client: TableClient,
  actions: readonly RowAction[],
  options: SubmitOptions,
): Promise<FailedBatch[]> {
  const retriable = options.retriable ?? ((error: unknown) => !conflictStatus(error));
  const results = await mapWithConcurrency(
    batchesOf(actions),
    options.concurrency ?? BATCHES_IN_FLIGHT,
    async (batch): Promise<FailedBatch | undefined> => {
      for (let attempt = 1; ; attempt++) {
        try {
          await client.submitTransaction(batch, options.limit());
          return undefined;
        } catch (error) {
          if (attempt >= 2 || !retriable(error)) return { actions: batch, error };
        }
      }
    },
  );
  return results.filter((r): r is FailedBatch => r !== undefined);
}
