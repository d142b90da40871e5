import { setTimeout as sleep } from "node:timers/promises";
import type { Read } from "../../core/ports/history.js";
import type {
  ClaimResult,
  VaultEventRecord,
  VaultEventStore,
} from "../../core/ports/vaultEvents.js";
import { CertschedError, type ErrorCode, ValidationError } from "../../lib/errors.js";
import {
  fromVaultEventRow,
  outcomeText,
  type StoredVaultEvent,
  toVaultEventRow,
  vaultEventPartition,
  vaultEventRowKey,
} from "./rows/vaultEventRow.js";
import {
  failureOf,
  type LazyTable,
  lazyTable,
  odataLiteral,
  readRow,
  statusOf,
  type TableLocation,
} from "./table.js";

/** Next to the ledger's table, in the same account; one table for every account's rows. */
export const VAULT_EVENTS_TABLE = "certschedvaultevents";
/** Records `list` answers at most, the newest; the rest are counted in one invalid line. */
export const MAX_LISTED = 5_000;
/** Lines `list` gives rows that fail validation; the rest are counted in one more. */
export const MAX_INVALID_LINES = 100;

export interface TableVaultEventsOptions extends TableLocation {
  /** Default VAULT_EVENTS_TABLE. */
  readonly tableName?: string;
  /** Longest wait for one storage call, in ms (CERTSCHED_HTTP_TIMEOUT); unset: no limit. */
  readonly timeoutMs?: number | undefined;
}

/** Tries of one claim when another writer changed the row between our read and our write. */
const CONDITIONAL_ATTEMPTS = 8;
/** Longest pause before trying again, in ms (random below it, so racing writers spread out). */
const CONDITIONAL_JITTER_MS = 50;

const STORAGE_UNAVAILABLE: ErrorCode = "STORAGE_UNAVAILABLE";

/**
 * The Key Vault events store in Azure Table storage (rows/vaultEventRow.ts names the keys): the
 * table is created on first write, a missing table reads as empty. A claim is an insert, or an
 * update of the row at the ETag read, so two deliveries racing for one event never both get it.
 * Storage failures throw STORAGE_UNAVAILABLE with the table and the status; a row that fails
 * validation is an invalid line of `list`, and a STORAGE_UNAVAILABLE naming its fields (not
 * retriable: a person deletes it) when a claim meets it.
 */
export function createTableVaultEventStore(options: TableVaultEventsOptions): VaultEventStore {
  return new TableVaultEventStore(options);
}

/** The store as a class whose methods are fields, so it can be spread like an object of functions. */
class TableVaultEventStore implements VaultEventStore {
  readonly kind = "table";
  readonly #tableName: string;
  readonly #table: LazyTable;

  constructor(options: TableVaultEventsOptions) {
    this.#tableName = options.tableName ?? VAULT_EVENTS_TABLE;
    this.#table = lazyTable(options, this.#tableName);
  }

  readonly claim = async (
    account: string,
    record: Omit<VaultEventRecord, "doneAt" | "outcome">,
    leaseMs: number,
  ): Promise<ClaimResult> => {
    const leaseUntil = new Date(record.claimedAt.getTime() + leaseMs);
    const fresh = toVaultEventRow(account, record, leaseUntil);
    for (let attempt = 1; attempt <= CONDITIONAL_ATTEMPTS; attempt++) {
      const row = await this.#read(account, record.key);
      const held = row && this.#parse(row);
      if (held?.record.doneAt) return "done";
      if (held?.leaseUntil && held.leaseUntil.getTime() > record.claimedAt.getTime()) return "held";
      // Taken again after a delivery died: the first claim's id and time stay.
      const next = row ? { ...keysOf(account, record.key), leaseUntil: fresh.leaseUntil } : fresh;
      if (await this.#conditional(next, row?.etag)) return "claimed";
      await sleep(Math.random() * CONDITIONAL_JITTER_MS);
    }
    // Changed under us on every try: others are at it; one of them holds the claim.
    return "held";
  };

  readonly complete = async (
    account: string,
    key: string,
    outcome: string,
    at: Date,
  ): Promise<void> => {
    await this.#merge(account, key, {
      doneAt: at.toISOString(),
      outcome: outcomeText(outcome),
      leaseUntil: "",
    });
  };

  readonly release = async (account: string, key: string): Promise<void> => {
    await this.#merge(account, key, { leaseUntil: "" });
  };

  readonly list = async (account: string, since: Date): Promise<Read<VaultEventRecord>> => {
    // ISO-8601 instants of one length sort as text: "claimed at or after" is one comparison.
    const filter = `PartitionKey eq ${odataLiteral(vaultEventPartition(account))} and claimedAt ge ${odataLiteral(since.toISOString())}`;
    const items: VaultEventRecord[] = [];
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
          items.push(fromVaultEventRow(row, this.#tableName).record);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          if (invalid.length < MAX_INVALID_LINES) invalid.push(error.message);
          else unlisted += 1;
        }
      }
    } catch (error) {
      if (statusOf(error) !== 404) throw this.#unavailable("read", error);
    }
    return newestOf(items, invalid, unlisted);
  };

  /** Inserts `row`, or merges it into the stored one still at `etag`: false when another was first. */
  async #conditional(row: object, etag: string | undefined): Promise<boolean> {
    return this.#write(async (client) => {
      try {
        const entity = row as { partitionKey: string; rowKey: string };
        if (etag === undefined) await client.createEntity(entity, this.#table.limit());
        else await client.updateEntity(entity, "Merge", { etag, ...this.#table.limit() });
        return true;
      } catch (error) {
        if (statusOf(error) === 409 || statusOf(error) === 412) return false;
        throw error;
      }
    });
  }

  /** Merges `properties` into a record's row, whatever its version; nothing when there is none. */
  async #merge(account: string, key: string, properties: Record<string, string>): Promise<void> {
    await this.#write(async (client) => {
      try {
        await client.updateEntity({ ...keysOf(account, key), ...properties }, "Merge", {
          etag: "*",
          ...this.#table.limit(),
        });
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
    });
  }

  async #read(account: string, key: string) {
    try {
      return await readRow(this.#table, vaultEventPartition(account), vaultEventRowKey(key));
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

  /** A stored row read back; one that fails validation is named, never guessed at. */
  #parse(row: Record<string, unknown>): StoredVaultEvent {
    try {
      return fromVaultEventRow(row, this.#tableName);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      throw new CertschedError(
        STORAGE_UNAVAILABLE,
        `vault events store: a row certsched cannot read: ${error.message}`,
        { retriable: false, fault: "upstream", cause: error },
      );
    }
  }

  #unavailable(action: string, error: unknown): CertschedError {
    return new CertschedError(
      STORAGE_UNAVAILABLE,
      `vault events store: cannot ${action} table ${this.#tableName} (${failureOf(error)})`,
      { retriable: true, fault: "upstream", cause: error },
    );
  }
}

const keysOf = (account: string, key: string) => ({
  partitionKey: vaultEventPartition(account),
  rowKey: vaultEventRowKey(key),
});

/** The newest MAX_LISTED records, newest first; those left out and unlisted rows counted. */
export function newestOf(
  items: VaultEventRecord[],
  invalid: string[],
  unlisted = 0,
): Read<VaultEventRecord> {
  items.sort((a, b) => b.claimedAt.getTime() - a.claimedAt.getTime());
  const dropped = Math.max(0, items.length - MAX_LISTED);
  if (unlisted > 0) invalid.push(`${unlisted} more rows that fail validation, not listed`);
  if (dropped > 0) {
    invalid.push(`${dropped} older records not listed: at most ${MAX_LISTED} are, the newest`);
  }
  return { items: items.slice(0, MAX_LISTED), invalid };
}
