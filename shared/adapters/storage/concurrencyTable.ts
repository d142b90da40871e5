import type { AimdState } from "../../core/concurrency/aimd.js";
import type { SharedLimitStore } from "../../core/ports/concurrency.js";
import { failureOf, lazyTable, readRow, type TableLocation, writeRow } from "./table.js";

/** One row per account: the adaptive concurrency limit every process of the account shares. */
export const CONCURRENCY_TABLE = "certschedconcurrency";
const PARTITION = "account";

export interface ConcurrencyTableOptions extends TableLocation {
  /** The account whose row this is (the row key). */
  readonly account: string;
  readonly tableName?: string;
  /** Longest wait for one storage call (ms), SDK retries included; unset: no limit. */
  readonly timeoutMs?: number | undefined;
  /** The clock of `updatedAt`. */
  readonly now: () => Date;
}

interface Row {
  partitionKey: string;
  rowKey: string;
  limit: number;
  epoch: number;
  baselineMs?: number;
  ceiling?: number;
  updatedAt: string;
}

const whole = (value: unknown, min: number): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min ? value : undefined;

/**
 * The stored state, or undefined when the row is not one this version wrote (a person edited
 * it, another version wrote it): such a row is read as forgotten, and the next change replaces it.
 */
function stateOf(row: Record<string, unknown>): { state: AimdState; updatedAt: Date } | undefined {
  const limit = whole(row.limit, 1);
  const epoch = whole(row.epoch, 0);
  const at = typeof row.updatedAt === "string" ? new Date(row.updatedAt) : undefined;
  if (limit === undefined || epoch === undefined || !at || Number.isNaN(at.getTime())) {
    return undefined;
  }
  const baselineMs =
    typeof row.baselineMs === "number" && Number.isFinite(row.baselineMs) && row.baselineMs >= 0
      ? row.baselineMs
      : undefined;
  const ceiling = whole(row.ceiling, 1);
  return { state: { limit, epoch, healthy: 0, baselineMs, ceiling }, updatedAt: at };
}

/**
 * The account's row in table `certschedconcurrency` (the app's storage account, beside the
 * ledger), read with its ETag and written only while still at the version read: processes that
 * change the limit at once never overwrite each other unseen (shared/core/concurrency).
 * A storage failure is thrown with the table and the status; the caller goes on without it.
 */
export function concurrencyTable(options: ConcurrencyTableOptions): SharedLimitStore {
  const tableName = options.tableName ?? CONCURRENCY_TABLE;
  const table = lazyTable(options, tableName);
  const unavailable = (action: string, error: unknown) =>
    new Error(`concurrency limit: cannot ${action} table ${tableName} (${failureOf(error)})`, {
      cause: error,
    });
  return {
    async read() {
      let row: Awaited<ReturnType<typeof readRow>>;
      try {
        row = await readRow(table, PARTITION, options.account);
      } catch (error) {
        throw unavailable("read", error);
      }
      if (row === undefined) return undefined;
      const stored = stateOf(row);
      // Unreadable: as old as can be (forgotten), with its version so a write replaces it.
      return stored
        ? { ...stored, etag: row.etag }
        : { state: { limit: 1, epoch: 0, healthy: 0 }, updatedAt: new Date(0), etag: row.etag };
    },
    async write(state, etag) {
      const row: Row = {
        partitionKey: PARTITION,
        rowKey: options.account,
        limit: state.limit,
        epoch: state.epoch,
        ...(state.baselineMs === undefined ? {} : { baselineMs: state.baselineMs }),
        ...(state.ceiling === undefined ? {} : { ceiling: state.ceiling }),
        updatedAt: options.now().toISOString(),
      };
      try {
        if (etag === undefined) await table.ensureTable();
        const written = await writeRow<Row>(table, row, etag);
        return "conflict" in written ? "conflict" : "written";
      } catch (error) {
        throw unavailable("write", error);
      }
    },
  };
}
