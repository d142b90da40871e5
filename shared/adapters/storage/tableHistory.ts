import { randomBytes } from "node:crypto";
import type { TableClient } from "@azure/data-tables";
import type { CertificateEvent, RunRecord } from "../../core/history/events.js";
import {
  DEFAULT_EVENT_LIMIT,
  type EventQuery,
  type History,
  type Read,
  type ServiceRequest,
} from "../../core/ports/history.js";
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
  type LazyTable,
  lazyTable,
  odataLiteral,
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

/** The history in Azure Table storage; the table is created on first write. */
export function tableHistory(options: TableHistoryOptions): History {
  return new TableHistory(options);
}

/** An event whose row could not be written: its certificate, and why. */
interface EventFailure {
  readonly name: string;
  readonly error: unknown;
}

/**
 * The history as a class: its methods are fields, so that it can be spread and its methods
 * passed around like the object of functions it was.
 */
class TableHistory implements History {
  readonly kind = "table";
  readonly #tableName: string;
  readonly #table: LazyTable;
  readonly #unavailable: ReturnType<typeof unavailableError>;

  constructor(options: TableHistoryOptions) {
    this.#tableName = options.tableName ?? HISTORY_TABLE;
    this.#table = lazyTable(options, this.#tableName);
    this.#unavailable = unavailableError("HISTORY_UNAVAILABLE", "run history", this.#tableName);
  }

  readonly recordRequests = async (requests: readonly ServiceRequest[]): Promise<void> => {
    if (requests.length === 0) return;
    try {
      await this.#table.ensureTable();
      const table = await this.#table.client();
      await mapWithConcurrency(requests, WRITE_CONCURRENCY, (request) =>
        table.createEntity(
          toRequestRow(request, randomBytes(6).toString("hex")),
          this.#table.limit(),
        ),
      );
    } catch (error) {
      throw this.#unavailable("write", error);
    }
  };

  readonly requestsSince = async (since: Date): Promise<number> => {
    // Same key order as events: "at or after since" is "row key up to since's".
    const filter = `PartitionKey eq ${odataLiteral(REQUEST_PARTITION)} and RowKey lt ${odataLiteral(`${invertedTime(since)}.`)}`;
    let counted = 0;
    try {
      const rows = (await this.#table.client()).listEntities<Record<string, unknown>>({
        queryOptions: { filter },
        ...this.#table.limit(),
      });
      for await (const row of rows) {
        try {
          if (fromRequestRow(row, this.#tableName).at.getTime() >= since.getTime()) counted += 1;
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          // A row that fails validation still stands for a request its key places in the
          // window: a budget that skipped it would let certsched send more than allowed.
          counted += 1;
        }
      }
    } catch (error) {
      if (statusOf(error) === 404) return counted;
      throw this.#unavailable("read", error);
    }
    return counted;
  };

  readonly append = async (events: readonly CertificateEvent[], run?: RunRecord): Promise<void> => {
    let table: TableClient;
    try {
      await this.#table.ensureTable();
      table = await this.#table.client();
    } catch (error) {
      throw this.#unavailable("write", error);
    }
    const failures = await this.#writeEvents(table, events);
    try {
      // Replace: a sweep writes its run row before its bookkeeping and again after.
      if (run) await table.upsertEntity(toRunRow(run), "Replace", this.#table.limit());
    } catch (error) {
      throw this.#unavailable("write", error);
    }
    const first = failures[0];
    if (first) {
      const names = failures.map((f) => f.name);
      throw new UnstoredError(
        "HISTORY_UNAVAILABLE",
        `run history: cannot write the events of ${someNames(names)} to table ${this.#tableName} (${failureOf(first.error)})`,
        names,
        { retriable: true, cause: first.error },
      );
    }
  };

  readonly events = async ({
    certificateName,
    since,
    limit: max = DEFAULT_EVENT_LIMIT,
  }: EventQuery): Promise<Read<CertificateEvent>> => {
    // Row keys hold the inverted time: "at or after since" is "row key up to since's".
    const upTo = `RowKey lt ${odataLiteral(`${invertedTime(since)}.`)}`;
    const partition =
      certificateName === undefined
        ? `PartitionKey gt ${odataLiteral(EVENT_PARTITION_PREFIX)} and PartitionKey lt ${odataLiteral("cert}")}`
        : `PartitionKey eq ${odataLiteral(eventPartition(certificateName))}`;
    // Every certificate's: partitions come in name order, so read them all, then sort.
    const read = await this.#query(
      `${partition} and ${upTo}`,
      certificateName === undefined ? Number.MAX_SAFE_INTEGER : max,
      (row) => fromEventRow(row, this.#tableName),
    );
    // A partition stands for one name (a hash, for a long one): keep only that name's rows.
    const items =
      certificateName === undefined
        ? read.items
        : read.items.filter((e) => e.certificateName === certificateName);
    items.sort((a, b) => b.at.getTime() - a.at.getTime());
    return { items: items.slice(0, max), invalid: read.invalid };
  };

  readonly runs = async (last: number): Promise<Read<RunRecord>> => {
    return this.#query(`PartitionKey eq ${odataLiteral(RUN_PARTITION)}`, last, (row) =>
      fromRunRow(row, this.#tableName),
    );
  };

  readonly removeBefore = async (cutoff: Date): Promise<number> => {
    // Older rows have larger inverted times: one range across every partition.
    const filter = `RowKey gt ${odataLiteral(`${invertedTime(cutoff)}.`)}`;
    try {
      return await removeOld(this.#table, {
        filter,
        select: ["PartitionKey", "RowKey", "Timestamp"],
        // A request row's key carries the writing host's clock, which may run days behind;
        // the request budget counts it by the storage's Timestamp. It goes only once that
        // too is past the cutoff, else the budget would forget a request it counts.
        keep: (row) =>
          row.partitionKey === REQUEST_PARTITION && !storedBefore(row.timestamp, cutoff),
        concurrency: DELETE_CONCURRENCY,
      });
    } catch (error) {
      throw this.#unavailable("clean up", error);
    }
  };

  /**
   * Writes one row per event. Rows of a run fall in many partitions (a transaction holds one):
   * a few at a time. Each is its own write: one certificate's failing row neither stops the
   * others nor the run's, and the error names that certificate. Within one instant, a later
   * event of the same append sorts first (newest first).
   */
  async #writeEvents(
    table: TableClient,
    events: readonly CertificateEvent[],
  ): Promise<EventFailure[]> {
    return (
      await mapWithConcurrency(events, WRITE_CONCURRENCY, async (event, index) => {
        try {
          await table.createEntity(
            toEventRow(
              event,
              `${String(999_999 - (index % 1_000_000)).padStart(6, "0")}${randomBytes(4).toString("hex")}`,
            ),
            this.#table.limit(),
          );
          return undefined;
        } catch (error) {
          return { name: event.certificateName, error };
        }
      })
    ).filter((f) => f !== undefined);
  }

  /** Reads rows matching `filter`, up to `max`; a missing table reads as empty. */
  async #query<T>(
    filter: string,
    max: number,
    parse: (row: Record<string, unknown>) => T,
  ): Promise<Read<T>> {
    const items: T[] = [];
    const invalid: string[] = [];
    try {
      const rows = (await this.#table.client()).listEntities<Record<string, unknown>>({
        queryOptions: { filter },
        ...this.#table.limit(),
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
      throw this.#unavailable("read", error);
    }
    return { items, invalid };
  }
}

/** Whether the storage wrote a row (its Timestamp) before `cutoff`; unreadable: it did not. */
function storedBefore(timestamp: unknown, cutoff: Date): boolean {
  const at = typeof timestamp === "string" ? Date.parse(timestamp) : Number.NaN;
  return !Number.isNaN(at) && at < cutoff.getTime();
}
