import { setTimeout as sleep } from "node:timers/promises";
import type { Read } from "../../core/ports/history.js";
import type { TransparencyStore, WatcherState } from "../../core/ports/transparency.js";
import type { SeenIssuance } from "../../core/transparency/issuance.js";
import { CertschedError, type ErrorCode, ValidationError } from "../../lib/errors.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import {
  acknowledgementJson,
  type CursorRow,
  cursorPartition,
  fromCursorRow,
  fromIssuanceRow,
  fromWatcherRow,
  ISSUANCE_ID,
  issuancePartition,
  nameRowKey,
  pauseReason,
  type StoredIssuance,
  toIssuanceRow,
  verdictJson,
  WATCHER_PARTITION,
  type WatcherRow,
} from "./rows/issuanceRow.js";
import {
  failureOf,
  type LazyTable,
  lazyTable,
  odataLiteral,
  readRow,
  type StoredRow,
  statusOf,
  type TableLocation,
} from "./table.js";

/** Next to the ledger's table, in the same account; one table for every account's rows. */
export const TRANSPARENCY_TABLE = "certschedtransparency";
/** A claim on an issuance's message older than this may be taken again (its sender died). */
export const NOTICE_CLAIM_MS = 15 * 60_000;
/** Issuances `list` answers at most, the newest; the rest are counted in one invalid line. */
export const MAX_LISTED = 5_000;
/** Lines `list` gives rows that fail validation; the rest are counted in one more. */
export const MAX_INVALID_LINES = 100;

export interface TableTransparencyOptions extends TableLocation {
  /** Default TRANSPARENCY_TABLE. */
  readonly tableName?: string;
  /** Longest wait for one storage call, in ms (CERTSCHED_HTTP_TIMEOUT); unset: no limit. */
  readonly timeoutMs?: number | undefined;
}

/** Writes in flight at once when a page of issuances is added. */
const WRITE_CONCURRENCY = 8;
/**
 * Tries of one conditional write (a claim, a request taken from the allowance) when another
 * writer changed the row between our read and our write: each round one writer wins.
 */
const CONDITIONAL_ATTEMPTS = 8;
/** Longest pause before trying again, in ms (random below it, so racing writers spread out). */
const CONDITIONAL_JITTER_MS = 50;
const HOUR_MS = 3_600_000;

/** The port's code for storage it cannot use. */
const STORAGE_UNAVAILABLE: ErrorCode = "STORAGE_UNAVAILABLE";

/**
 * The Certificate Transparency store in Azure Table storage (rows/issuanceRow.ts names the keys);
 * the table is created on first write, a missing table reads as empty. Storage failures throw
 * STORAGE_UNAVAILABLE with the table and the status (never the request); a row that fails
 * validation is an invalid line of `list`, and a STORAGE_UNAVAILABLE that names its fields
 * (not retriable: a person corrects or deletes it) when one row is asked for.
 */
export function createTableTransparencyStore(options: TableTransparencyOptions): TransparencyStore {
  return new TableTransparencyStore(options);
}

/**
 * The store as a class: its methods are fields, so that it can be spread and its methods passed
 * around like the object of functions it is.
 */
class TableTransparencyStore implements TransparencyStore {
  readonly kind = "table";
  readonly #tableName: string;
  readonly #table: LazyTable;

  constructor(options: TableTransparencyOptions) {
    this.#tableName = options.tableName ?? TRANSPARENCY_TABLE;
    this.#table = lazyTable(options, this.#tableName);
  }

  readonly cursor = async (account: string, name: string): Promise<string | undefined> => {
    const row = await this.#read(cursorPartition(account), nameRowKey(name));
    if (row === undefined) return undefined;
    return this.#parse(() => fromCursorRow(row, account, name, this.#tableName));
  };

  readonly setCursor = async (account: string, name: string, after: string): Promise<void> => {
    if (!ISSUANCE_ID.test(after)) throw new RangeError("a cursor must be an issuance id");
    const row: CursorRow = {
      partitionKey: cursorPartition(account),
      rowKey: nameRowKey(name),
      account,
      name,
      after,
    };
    await this.#write(async (client) => {
      await client.upsertEntity(row, "Replace", this.#table.limit());
    });
  };

  readonly addNew = async (items: readonly SeenIssuance[]): Promise<SeenIssuance[]> => {
    if (items.length === 0) return [];
    // Every row is made before any is written: an id a key may not be stops the page whole.
    const rows = items.map(toIssuanceRow);
    const outcomes = await this.#write((client) =>
      mapWithConcurrency(rows, WRITE_CONCURRENCY, async (row) => {
        try {
          await client.createEntity(row, this.#table.limit());
          return "added" as const;
        } catch (error) {
          // 409: stored already (by an earlier run, another process, or earlier in this page).
          return statusOf(error) === 409 ? ("stored" as const) : { error };
        }
      }),
    );
    const failed = outcomes.find((o) => typeof o === "object");
    if (failed) throw this.#unavailable("write", failed.error);
    return items.filter((_, index) => outcomes[index] === "added");
  };

  readonly list = async (
    account: string,
    options?: { readonly since?: Date },
  ): Promise<Read<SeenIssuance>> => {
    // ISO-8601 instants of one length sort as text: "first seen at or after" is one comparison.
    const since = options?.since
      ? ` and firstSeenAt ge ${odataLiteral(options.since.toISOString())}`
      : "";
    const filter = `PartitionKey eq ${odataLiteral(issuancePartition(account))}${since}`;
    const newest = new Newest();
    const invalid: string[] = [];
    let unlisted = 0;
    try {
      const client = await this.#table.client();
      const rows = client.listEntities<Record<string, unknown>>({
        queryOptions: { filter },
        ...this.#table.limit(),
      });
      for await (const row of rows) {
        try {
          newest.add(fromIssuanceRow(row, this.#tableName).seen);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          if (invalid.length < MAX_INVALID_LINES) invalid.push(error.message);
          else unlisted += 1;
        }
      }
    } catch (error) {
      if (statusOf(error) !== 404) throw this.#unavailable("read", error);
    }
    const { items, dropped } = newest.result();
    if (unlisted > 0) invalid.push(`${unlisted} more rows that fail validation, not listed`);
    if (dropped > 0) {
      invalid.push(`${dropped} older issuances not listed: at most ${MAX_LISTED} are, the newest`);
    }
    return { items, invalid };
  };

  readonly get = async (account: string, id: string): Promise<SeenIssuance | undefined> =>
    (await this.#issuance(account, id))?.stored.seen;

  readonly setVerdict: TransparencyStore["setVerdict"] = async (account, id, verdict) => {
    await this.#merge(account, id, { verdict: verdictJson(verdict) });
  };

  readonly claimNotice = async (account: string, id: string, now: Date): Promise<boolean> => {
    for (let attempt = 1; attempt <= CONDITIONAL_ATTEMPTS; attempt++) {
      const held = await this.#issuance(account, id);
      if (held === undefined || held.stored.seen.notifiedAt) return false;
      const { claimedAt } = held.stored;
      if (claimedAt && now.getTime() - claimedAt.getTime() < NOTICE_CLAIM_MS) return false;
      const outcome = await this.#write(async (client) => {
        try {
          await client.updateEntity(
            { ...keysOf(account, id), claimedAt: now.toISOString() },
            "Merge",
            { etag: held.etag, ...this.#table.limit() },
          );
          return "claimed";
        } catch (error) {
          // 412: another writer changed the row since we read it; 404: it is gone.
          if (statusOf(error) === 412) return "changed";
          if (statusOf(error) === 404) return "gone";
          throw error;
        }
      });
      if (outcome !== "changed") return outcome === "claimed";
      await sleep(Math.random() * CONDITIONAL_JITTER_MS);
    }
    // Changed under us on every try: others are at it; one of them holds the claim.
    return false;
  };

  readonly markNotified = async (account: string, id: string, at: Date): Promise<void> => {
    await this.#merge(account, id, { notifiedAt: at.toISOString(), claimedAt: "" });
  };

  readonly releaseNotice = async (account: string, id: string): Promise<void> => {
    await this.#merge(account, id, { claimedAt: "" });
  };

  /** The first acknowledgement is kept: a second one changes nothing. */
  readonly acknowledge: TransparencyStore["acknowledge"] = async (account, id, ack) => {
    const held = await this.get(account, id);
    if (held === undefined || held.acknowledged) return held;
    const found = await this.#merge(account, id, { acknowledged: acknowledgementJson(ack) });
    return found ? this.get(account, id) : undefined;
  };

  readonly watcherState = async (keyName: string): Promise<WatcherState> => {
    const row = await this.#read(WATCHER_PARTITION, nameRowKey(keyName));
    if (row === undefined) return {};
    const { pausedUntil, reason } = this.#parse(() =>
      fromWatcherRow(row, keyName, this.#tableName),
    );
    return {
      ...(pausedUntil ? { pausedUntil } : {}),
      ...(reason === undefined ? {} : { reason }),
    };
  };

  readonly pause = async (keyName: string, until: Date, reason: string): Promise<void> => {
    const row: WatcherRow = {
      partitionKey: WATCHER_PARTITION,
      rowKey: nameRowKey(keyName),
      keyName,
      pausedUntil: until.toISOString(),
      reason: pauseReason(reason),
    };
    // Merge: the hour's count in the same row stays as it is.
    await this.#write(async (client) => {
      await client.upsertEntity(row, "Merge", this.#table.limit());
    });
  };

  readonly takeRequest = async (
    keyName: string,
    now: Date,
    allowance: number,
  ): Promise<boolean> => {
    if (allowance < 1) return false;
    const thisHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
    for (let attempt = 1; attempt <= CONDITIONAL_ATTEMPTS; attempt++) {
      const row = await this.#read(WATCHER_PARTITION, nameRowKey(keyName));
      const held = row && this.#parse(() => fromWatcherRow(row, keyName, this.#tableName));
      // An hour counted by a host whose clock runs ahead is counted on, never restarted.
      const counted = held?.hour !== undefined && held.hour.getTime() >= thisHour;
      const hour = counted && held?.hour ? held.hour.getTime() : thisHour;
      const used = counted ? (held?.requests ?? 0) : 0;
      if (used >= allowance) return false;
      const next: WatcherRow = {
        partitionKey: WATCHER_PARTITION,
        rowKey: nameRowKey(keyName),
        keyName,
        hour: new Date(hour).toISOString(),
        requests: used + 1,
      };
      if (await this.#conditional(next, row?.etag)) return true;
      await sleep(Math.random() * CONDITIONAL_JITTER_MS);
    }
    throw new CertschedError(
      STORAGE_UNAVAILABLE,
      `transparency store: the hour's allowance in table ${this.#tableName} changed under each of ${CONDITIONAL_ATTEMPTS} tries`,
      { retriable: true, fault: "upstream" },
    );
  };

  /** Inserts `row`, or merges it into the stored one still at `etag`: false when another was first. */
  async #conditional(row: WatcherRow, etag: string | undefined): Promise<boolean> {
    return this.#write(async (client) => {
      try {
        if (etag === undefined) await client.createEntity(row, this.#table.limit());
        else await client.updateEntity(row, "Merge", { etag, ...this.#table.limit() });
        return true;
      } catch (error) {
        if (statusOf(error) === 409 || statusOf(error) === 412) return false;
        throw error;
      }
    });
  }

  /** An issuance's row, read and validated, with its version; undefined when there is none. */
  async #issuance(
    account: string,
    id: string,
  ): Promise<{ stored: StoredIssuance; etag: string } | undefined> {
    // An id no row key may be is no stored issuance's.
    if (!ISSUANCE_ID.test(id)) return undefined;
    const row = await this.#read(issuancePartition(account), id);
    if (row === undefined) return undefined;
    return { stored: this.#parse(() => fromIssuanceRow(row, this.#tableName)), etag: row.etag };
  }

  /**
   * Merges `properties` into an issuance's row, whatever its version (each is the latest word on
   * its own properties); never an insert. False when there is no such issuance.
   */
  async #merge(account: string, id: string, properties: Record<string, string>): Promise<boolean> {
    if (!ISSUANCE_ID.test(id)) return false;
    return this.#write(async (client) => {
      try {
        await client.updateEntity({ ...keysOf(account, id), ...properties }, "Merge", {
          etag: "*",
          ...this.#table.limit(),
        });
        return true;
      } catch (error) {
        if (statusOf(error) === 404) return false;
        throw error;
      }
    });
  }

  /** One row and its version; undefined when there is none or no table yet. */
  async #read(partitionKey: string, rowKey: string): Promise<StoredRow | undefined> {
    try {
      return await readRow(this.#table, partitionKey, rowKey);
    } catch (error) {
      throw this.#unavailable("read", error);
    }
  }

  /** Runs a write with the table made; any failure it throws is the store's. */
  async #write<T>(
    work: (client: Awaited<ReturnType<LazyTable["client"]>>) => Promise<T>,
  ): Promise<T> {
    try {
      await this.#table.ensureTable();
      return await work(await this.#table.client());
    } catch (error) {
      throw this.#unavailable("write", error);
    }
  }

  /** A stored row read as `parse` reads it; one that fails validation is named, never guessed. */
  #parse<T>(parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      throw new CertschedError(
        STORAGE_UNAVAILABLE,
        `transparency store: a row certsched cannot read: ${error.message}`,
        { retriable: false, fault: "upstream", cause: error },
      );
    }
  }

  #unavailable(action: string, error: unknown): CertschedError {
    return new CertschedError(
      STORAGE_UNAVAILABLE,
      `transparency store: cannot ${action} table ${this.#tableName} (${failureOf(error)})`,
      { retriable: true, fault: "upstream", cause: error },
    );
  }
}

const keysOf = (account: string, id: string) => ({
  partitionKey: issuancePartition(account),
  rowKey: id,
});

/** The newest MAX_LISTED issuances of those added, by firstSeenAt, in bounded memory. */
class Newest {
  #items: SeenIssuance[] = [];
  #dropped = 0;

  add(item: SeenIssuance): void {
    this.#items.push(item);
    if (this.#items.length >= 2 * MAX_LISTED) this.#trim();
  }

  result(): { items: SeenIssuance[]; dropped: number } {
    this.#trim();
    return { items: this.#items, dropped: this.#dropped };
  }

  #trim(): void {
    this.#items.sort((a, b) => b.firstSeenAt.getTime() - a.firstSeenAt.getTime());
    this.#dropped += Math.max(0, this.#items.length - MAX_LISTED);
    this.#items = this.#items.slice(0, MAX_LISTED);
  }
}
