import type { TableClient } from "@azure/data-tables";
import type { KeyClaim, KeyEntry, RunStore, SaveOptions } from "../../core/ports/runStore.js";
import { advances, type Run } from "../../core/runs/run.js";
import { CertschedError, ValidationError } from "../../lib/errors.js";
import { fromRunRow, RUN_PARTITION, toRunRow } from "./rows/runRow.js";
import {
  type LazyTable,
  lazyTable,
  readRow,
  removeOld,
  type StoredRow,
  statusOf,
  type TableLocation,
  unavailableError,
  writeRow,
} from "./table.js";

/** Next to the ledger's and the history's tables, in the same account. */
export const RUNS_TABLE = "certschedruns";
/** Idempotency keys share the runs' table, in their own partition. */
export const KEY_PARTITION = "key";
/** Each account's unbroken stretch of refused credentials (noteRefusal), by account name. */
export const ACCOUNT_PARTITION = "account";

export interface TableRunStoreOptions extends TableLocation {
  readonly tableName?: string;
  /** Longest wait for one storage call, in ms (CERTSCHED_HTTP_TIMEOUT); unset: no limit. */
  readonly timeoutMs?: number | undefined;
}

interface KeyRow {
  partitionKey: string;
  rowKey: string;
  runId: string;
  dryRun: boolean;
  at: string;
}

/** A key row as stored; a row that is not one reads as expired, so the key is filed anew. */
function entryOf(row: Record<string, unknown>): KeyEntry | undefined {
  const { runId, dryRun, at } = row;
  if (typeof runId !== "string" || typeof dryRun !== "boolean" || typeof at !== "string") {
    return undefined;
  }
  const when = new Date(at);
  return Number.isNaN(when.getTime()) ? undefined : { runId, dryRun, at: when };
}

/** Runs in Azure Table storage; the table is created on first write. */
export function tableRunStore(options: TableRunStoreOptions): RunStore {
  return new TableRunStore(options);
}

/** A key row as read, with the version a conditional replace or delete names. */
interface HeldKey {
  readonly entry: KeyEntry | undefined;
  readonly etag: string;
}

/**
 * The store as a class: its methods are fields, so that it can be spread and its methods passed
 * around like the object of functions it was.
 */
class TableRunStore implements RunStore {
  readonly kind = "table";
  readonly #tableName: string;
  readonly #table: LazyTable;
  readonly #unavailable: ReturnType<typeof unavailableError>;

  constructor(options: TableRunStoreOptions) {
    this.#tableName = options.tableName ?? RUNS_TABLE;
    this.#table = lazyTable(options, this.#tableName);
    this.#unavailable = unavailableError("RUNS_UNAVAILABLE", "run store", this.#tableName);
  }

  readonly get = async (runId: string): Promise<Run | undefined> => {
    let row: StoredRow | undefined;
    try {
      row = await readRow(this.#table, RUN_PARTITION, runId);
    } catch (error) {
      throw this.#unavailable("read", error);
    }
    // No such run, or no table yet (nothing was ever queued).
    if (row === undefined) return undefined;
    try {
      return fromRunRow(row, this.#tableName);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      // The stored row is at fault, not whoever asked for it: never a 400 to the caller.
      throw new CertschedError(
        "RUNS_UNAVAILABLE",
        `run store: run ${runId} is stored in a form certsched cannot read (table ${this.#tableName}): ${error.message}`,
        { retriable: false, cause: error },
      );
    }
  };

  readonly save = async (run: Run, options?: SaveOptions): Promise<void> => {
    try {
      await this.#table.ensureTable();
      await this.#table.client();
      await this.#writeIfAdvancing(run, options);
    } catch (error) {
      throw this.#unavailable("write", error);
    }
  };

  readonly claimKey = async (
    keyHash: string,
    entry: KeyEntry,
    now: Date,
    windowMs: number,
  ): Promise<KeyClaim> => {
    const row: KeyRow = {
      partitionKey: KEY_PARTITION,
      rowKey: keyHash,
      runId: entry.runId,
      dryRun: entry.dryRun,
      at: entry.at.toISOString(),
    };
    try {
      await this.#table.ensureTable();
      const client = await this.#table.client();
      // Two rounds at most: insert; else read, and replace an expired entry unless someone
      // else replaced it first (the etag), in which case theirs is the live one.
      for (let round = 0; round < 3; round++) {
        const claim = await this.#claimOnce(client, row, now, windowMs);
        if (claim) return claim;
      }
      const final = await this.#readKey(client, keyHash);
      if (final.entry) return { claimed: false, entry: final.entry };
      throw new Error("the idempotency key changed hands repeatedly");
    } catch (error) {
      throw this.#unavailable("write", error);
    }
  };

  readonly listUnfinished = async (max: number): Promise<Run[]> => {
    const found: Run[] = [];
    try {
      const rows = (await this.#table.client()).listEntities<Record<string, unknown>>({
        queryOptions: {
          filter: `PartitionKey eq '${RUN_PARTITION}' and (state eq 'queued' or state eq 'running')`,
        },
        ...this.#table.limit(),
      });
      for await (const row of rows) {
        if (found.length >= max) break;
        try {
          found.push(fromRunRow(row, this.#tableName));
        } catch (error) {
          // A row certsched cannot read is no run it can move on; GET names what is wrong.
          if (!(error instanceof ValidationError)) throw error;
        }
      }
    } catch (error) {
      if (statusOf(error) === 404) return found; // no table: no runs
      throw this.#unavailable("read", error);
    }
    return found;
  };

  readonly removeBefore = async (cutoff: Date): Promise<number> => {
    // ISO-8601 UTC strings of one format sort as their instants: one range per partition.
    const before = cutoff.toISOString();
    const filter = `(PartitionKey eq '${RUN_PARTITION}' and requestedAt lt '${before}') or (PartitionKey eq '${KEY_PARTITION}' and at lt '${before}')`;
    try {
      return await removeOld(this.#table, {
        filter,
        select: ["PartitionKey", "RowKey"],
        concurrency: 1,
      });
    } catch (error) {
      throw this.#unavailable("clean up", error);
    }
  };

  readonly noteRefusal = async (
    account: string,
    refusedAt: Date | undefined,
  ): Promise<Date | undefined> => {
    try {
      const client = await this.#table.client();
      if (!refusedAt) {
        await client
          .deleteEntity(ACCOUNT_PARTITION, account, this.#table.limit())
          .catch((error) => {
            if (statusOf(error) !== 404) throw error;
          });
        return undefined;
      }
      const row = await readRow(this.#table, ACCOUNT_PARTITION, account);
      const kept = typeof row?.refusedSince === "string" ? new Date(row.refusedSince) : undefined;
      if (kept && !Number.isNaN(kept.getTime())) return kept;
      await this.#table.ensureTable();
      await client.upsertEntity(
        {
          partitionKey: ACCOUNT_PARTITION,
          rowKey: account,
          refusedSince: refusedAt.toISOString(),
        },
        "Replace",
        this.#table.limit(),
      );
      return refusedAt;
    } catch (error) {
      if (statusOf(error) === 404 && !refusedAt) return undefined;
      throw this.#unavailable("write", error);
    }
  };

  readonly releaseKey = async (keyHash: string, runId: string): Promise<void> => {
    try {
      const client = await this.#table.client();
      const held = await this.#readKey(client, keyHash);
      if (held.entry?.runId !== runId) return;
      await client.deleteEntity(KEY_PARTITION, keyHash, {
        etag: held.etag,
        ...this.#table.limit(),
      });
    } catch (error) {
      const status = statusOf(error);
      if (status === 404 || status === 412) return;
      throw this.#unavailable("write", error);
    }
  };

  /**
   * Reads the stored state, then writes only if the run moves forward, under its etag: a late
   * write (an attempt that lost its lease, a poisoned copy) must not undo an outcome.
   */
  async #writeIfAdvancing(run: Run, options: SaveOptions | undefined): Promise<void> {
    const row = toRunRow(run);
    for (let round = 0; round < 5; round++) {
      const stored = await readRow(this.#table, RUN_PARTITION, run.runId, ["state", "resentAt"]);
      if (options?.onlyIf !== undefined && stored?.state !== options.onlyIf) return;
      // Azurite answers a selected property a row lacks as null.
      if (options?.onlyIfNotResent && stored?.resentAt !== undefined && stored.resentAt !== null)
        return;
      if (stored && !advances(stored.state, run.state)) return;
      // Replace, not merge: a shorter summary must not keep the old one's trailing chunks.
      // A conflict, or the row removed meanwhile (404): read again.
      try {
        if (!("conflict" in (await writeRow(this.#table, row, stored?.etag)))) return;
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
    }
    throw new Error(`run ${run.runId} changed under every write`);
  }

  /**
   * One round of a claim: insert; else read, and replace an expired entry under its etag. The
   * claim, or undefined when the key changed hands meanwhile (the caller tries again).
   */
  async #claimOnce(
    client: TableClient,
    row: KeyRow,
    now: Date,
    windowMs: number,
  ): Promise<KeyClaim | undefined> {
    try {
      await client.createEntity(row, this.#table.limit());
      return { claimed: true };
    } catch (error) {
      if (statusOf(error) !== 409) throw error;
    }
    let held: HeldKey;
    try {
      held = await this.#readKey(client, row.rowKey);
    } catch (error) {
      if (statusOf(error) === 404) return undefined; // removed meanwhile: insert again
      throw error;
    }
    if (held.entry && now.getTime() - held.entry.at.getTime() < windowMs) {
      return { claimed: false, entry: held.entry };
    }
    try {
      await client.updateEntity(row, "Replace", { etag: held.etag, ...this.#table.limit() });
      return { claimed: true };
    } catch (error) {
      if (statusOf(error) !== 412 && statusOf(error) !== 404) throw error;
    }
    return undefined;
  }

  async #readKey(client: TableClient, keyHash: string): Promise<HeldKey> {
    const row = await client.getEntity<Record<string, unknown>>(
      KEY_PARTITION,
      keyHash,
      this.#table.limit(),
    );
    return { entry: entryOf(row), etag: row.etag };
  }
}
