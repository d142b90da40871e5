import { randomBytes } from "node:crypto";
import type { TableClient } from "@azure/data-tables";
import type { CertificateEvent, RunRecord } from "../../core/history/events.js";
import { DEFAULT_EVENT_LIMIT, type History, type Read } from "../../core/ports/history.js";
import { UnstoredError, ValidationError } from "../../lib/errors.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { someNames } from "../../lib/text/names.js";
import { HISTORY_TABLE } from "./accountTables.js";
import {
  EVENT_PARTITION_PREFIX,
  eventPartition,
  fromEventRow,
  fromRequestRow,
  fromRunRow,
  invertedTime,
  REQUEST_PARTITION,
  RUN_PARTITION,
  toEventRow,
  toRequestRow,
  toRunRow,
} from "./rows/historyRow.js";
import {
  failureOf,
  lazyTable,
  removeOld,
  statusOf,
  type TableLocation,
  unavailableError,
} from "./table.js";

export { HISTORY_TABLE };

export interface TableHistoryOptions extends TableLocation {
  readonly tableName?: string;
  /** Longest wait for one storage call, in ms (CERTSCHED_HTTP_TIMEOUT); unset: no limit. */
  readonly timeoutMs?: number | undefined;
}

/** Writes in flight at once when a run is recorded. */
const WRITE_CONCURRENCY = 8;
/** Deletes in flight at once during a cleanup. */
const DELETE_CONCURRENCY = 8;

/** OData string literal: quotes doubled. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The history in Azure Table storage; the table is created on first write. */
export function tableHistory(options: TableHistoryOptions): History {
  const tableName = options.tableName ?? HISTORY_TABLE;
  const table = lazyTable(options, tableName);
  const { limit, ensureTable } = table;
  const getClient = table.client;
  const unavailable = unavailableError("HISTORY_UNAVAILABLE", "run history", tableName);
  /** Reads rows matching `filter`, up to `max`; a missing table reads as empty. */
  const query = async <T>(
    filter: string,
    max: number,
    parse: (row: Record<string, unknown>) => T,
  ): Promise<Read<T>> => {
    const items: T[] = [];
    const invalid: string[] = [];
    try {
      const rows = (await getClient()).listEntities<Record<string, unknown>>({
        queryOptions: { filter },
        ...limit(),
      });
      for await (const row of rows) {
        try {
          items.push(parse(row));
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          invalid.push(error.message);
        }
        if (items.length >= max) break;
      }
    } catch (error) {
      if (statusOf(error) === 404) return { items, invalid };
      throw unavailable("read", error);
    }
    return { items, invalid };
  };

  return {
    kind: "table",
    async recordRequests(requests) {
      if (requests.length === 0) return;
      try {
        await ensureTable();
        const table = await getClient();
        await mapWithConcurrency(requests, WRITE_CONCURRENCY, (request) =>
          table.createEntity(toRequestRow(request, randomBytes(6).toString("hex")), limit()),
        );
      } catch (error) {
        throw unavailable("write", error);
      }
    },
    async requestsSince(since) {
      // Same key order as events: "at or after since" is "row key up to since's".
      const filter = `PartitionKey eq ${literal(REQUEST_PARTITION)} and RowKey lt ${literal(`${invertedTime(since)}.`)}`;
      let counted = 0;
      try {
        const rows = (await getClient()).listEntities<Record<string, unknown>>({
          queryOptions: { filter },
          ...limit(),
        });
        for await (const row of rows) {
          try {
            if (fromRequestRow(row, tableName).at.getTime() >= since.getTime()) counted += 1;
          } catch (error) {
            if (!(error instanceof ValidationError)) throw error;
            // A row that fails validation still stands for a request its key places in the
            // window: a budget that skipped it would let certsched send more than allowed.
            counted += 1;
          }
        }
      } catch (error) {
        if (statusOf(error) === 404) return counted;
        throw unavailable("read", error);
      }
      return counted;
    },
    async append(events: readonly CertificateEvent[], run?: RunRecord) {
      let table: TableClient;
      try {
        await ensureTable();
        table = await getClient();
      } catch (error) {
        throw unavailable("write", error);
      }
      // Rows of a run fall in many partitions (a transaction holds one): a few at a time. Each
      // is its own write: one certificate's failing row neither stops the others nor the run's,
      // and the error names that certificate (issue 20).
      // Within one instant, a later event of the same append sorts first (newest first).
      const failures = (
        await mapWithConcurrency(events, WRITE_CONCURRENCY, async (event, index) => {
          try {
            await table.createEntity(
              toEventRow(
                event,
                `${String(999_999 - (index % 1_000_000)).padStart(6, "0")}${randomBytes(4).toString("hex")}`,
              ),
              limit(),
            );
            return undefined;
          } catch (error) {
            return { name: event.certificateName, error };
          }
        })
      ).filter((f) => f !== undefined);
      try {
        // Replace: a sweep writes its run row before its bookkeeping and again after (issue 27).
        if (run) await table.upsertEntity(toRunRow(run), "Replace", limit());
      } catch (error) {
        throw unavailable("write", error);
      }
      const first = failures[0];
      if (first) {
        const names = failures.map((f) => f.name);
        throw new UnstoredError(
          "HISTORY_UNAVAILABLE",
          `run history: cannot write the events of ${someNames(names)} to table ${tableName} (${failureOf(first.error)})`,
          names,
          { retriable: true, cause: first.error },
        );
      }
    },
    async events({ certificateName, since, limit: max = DEFAULT_EVENT_LIMIT }) {
      // Row keys hold the inverted time: "at or after since" is "row key up to since's".
      const upTo = `RowKey lt ${literal(`${invertedTime(since)}.`)}`;
      const partition =
        certificateName === undefined
          ? `PartitionKey gt ${literal(EVENT_PARTITION_PREFIX)} and PartitionKey lt ${literal("cert}")}`
          : `PartitionKey eq ${literal(eventPartition(certificateName))}`;
      // Every certificate's: partitions come in name order, so read them all, then sort.
      const read = await query(
        `${partition} and ${upTo}`,
        certificateName === undefined ? Number.MAX_SAFE_INTEGER : max,
        (row) => fromEventRow(row, tableName),
      );
      // A partition stands for one name (a hash, for a long one): keep only that name's rows.
      const items =
        certificateName === undefined
          ? read.items
          : read.items.filter((e) => e.certificateName === certificateName);
      items.sort((a, b) => b.at.getTime() - a.at.getTime());
      return { items: items.slice(0, max), invalid: read.invalid };
    },
    async runs(last) {
      return query(`PartitionKey eq ${literal(RUN_PARTITION)}`, last, (row) =>
        fromRunRow(row, tableName),
      );
    },
    async removeBefore(cutoff) {
      // Older rows have larger inverted times: one range across every partition.
      const filter = `RowKey gt ${literal(`${invertedTime(cutoff)}.`)}`;
      try {
        return await removeOld(table, {
          filter,
          select: ["PartitionKey", "RowKey", "Timestamp"],
          // A request row's key carries the writing host's clock, which may run days behind;
          // the request budget counts it by the storage's Timestamp (issue 20). It goes only
          // once that too is past the cutoff, else the budget would forget a request it counts.
          keep: (row) =>
            row.partitionKey === REQUEST_PARTITION && !storedBefore(row.timestamp, cutoff),
          concurrency: DELETE_CONCURRENCY,
        });
      } catch (error) {
        throw unavailable("clean up", error);
      }
    },
  };
}

/** Whether the storage wrote a row (its Timestamp) before `cutoff`; unreadable: it did not. */
function storedBefore(timestamp: unknown, cutoff: Date): boolean {
  const at = typeof timestamp === "string" ? Date.parse(timestamp) : Number.NaN;
  return !Number.isNaN(at) && at < cutoff.getTime();
}
