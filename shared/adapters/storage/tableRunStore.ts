import type { TableClient } from "@azure/data-tables";
import type { KeyClaim, KeyEntry, RunStore } from "../../core/ports/runStore.js";
import { advances, type Run } from "../../core/runs/run.js";
import { CertschedError, ValidationError } from "../../lib/errors.js";
import { fromRunRow, RUN_PARTITION, toRunRow } from "./rows/runRow.js";
import {
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
  const tableName = options.tableName ?? RUNS_TABLE;
  const table = lazyTable(options, tableName);
  const { limit, ensureTable } = table;
  const unavailable = unavailableError("RUNS_UNAVAILABLE", "run store", tableName);
  const readKey = async (table: TableClient, keyHash: string) => {
    const row = await table.getEntity<Record<string, unknown>>(KEY_PARTITION, keyHash, limit());
    return { entry: entryOf(row), etag: row.etag };
  };

  return {
    kind: "table",
    async get(runId) {
      let row: StoredRow | undefined;
      try {
        row = await readRow(table, RUN_PARTITION, runId);
      } catch (error) {
        throw unavailable("read", error);
      }
      // No such run, or no table yet (nothing was ever queued).
      if (row === undefined) return undefined;
      try {
        return fromRunRow(row, tableName);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        // The stored row is at fault, not whoever asked for it: never a 400 to the caller.
        throw new CertschedError(
          "RUNS_UNAVAILABLE",
          `run store: run ${runId} is stored in a form certsched cannot read (table ${tableName}): ${error.message}`,
          { retriable: false, cause: error },
        );
      }
    },
    async save(run, options) {
      try {
        await ensureTable();
        await table.client();
        const row = toRunRow(run);
        // Read the stored state, then write only if the run moves forward, under its etag: a
        // late write (an attempt that lost its lease, a poisoned copy) must not undo an outcome.
        for (let round = 0; round < 5; round++) {
          const stored = await readRow(table, RUN_PARTITION, run.runId, ["state", "resentAt"]);
          if (options?.onlyIf !== undefined && stored?.state !== options.onlyIf) return;
          // Azurite answers a selected property a row lacks as null.
          if (
            options?.onlyIfNotResent &&
            stored?.resentAt !== undefined &&
            stored.resentAt !== null
          )
            return;
          if (stored && !advances(stored.state, run.state)) return;
          // Replace, not merge: a shorter summary must not keep the old one's trailing chunks.
          // A conflict, or the row removed meanwhile (404): read again.
          try {
            if (!("conflict" in (await writeRow(table, row, stored?.etag)))) return;
          } catch (error) {
            if (statusOf(error) !== 404) throw error;
          }
        }
        throw new Error(`run ${run.runId} changed under every write`);
      } catch (error) {
        throw unavailable("write", error);
      }
    },
    async claimKey(keyHash, entry, now, windowMs): Promise<KeyClaim> {
      const row: KeyRow = {
        partitionKey: KEY_PARTITION,
        rowKey: keyHash,
        runId: entry.runId,
        dryRun: entry.dryRun,
        at: entry.at.toISOString(),
      };
      try {
        await ensureTable();
        const client = await table.client();
        // Two rounds at most: insert; else read, and replace an expired entry unless someone
        // else replaced it first (the etag), in which case theirs is the live one.
        for (let round = 0; round < 3; round++) {
          try {
            await client.createEntity(row, limit());
            return { claimed: true };
          } catch (error) {
            if (statusOf(error) !== 409) throw error;
          }
          let held: Awaited<ReturnType<typeof readKey>>;
          try {
            held = await readKey(client, keyHash);
          } catch (error) {
            if (statusOf(error) === 404) continue; // removed meanwhile: insert again
            throw error;
          }
          if (held.entry && now.getTime() - held.entry.at.getTime() < windowMs) {
            return { claimed: false, entry: held.entry };
          }
          try {
            await client.updateEntity(row, "Replace", { etag: held.etag, ...limit() });
            return { claimed: true };
          } catch (error) {
            if (statusOf(error) !== 412 && statusOf(error) !== 404) throw error;
          }
        }
        const final = await readKey(client, keyHash);
        if (final.entry) return { claimed: false, entry: final.entry };
        throw new Error("the idempotency key changed hands repeatedly");
      } catch (error) {
        throw unavailable("write", error);
      }
    },
    async listUnfinished(max) {
      const found: Run[] = [];
      try {
        const rows = (await table.client()).listEntities<Record<string, unknown>>({
          queryOptions: {
            filter: `PartitionKey eq '${RUN_PARTITION}' and (state eq 'queued' or state eq 'running')`,
          },
          ...limit(),
        });
        for await (const row of rows) {
          if (found.length >= max) break;
          try {
            found.push(fromRunRow(row, tableName));
          } catch (error) {
            // A row certsched cannot read is no run it can move on; GET names what is wrong.
            if (!(error instanceof ValidationError)) throw error;
          }
        }
      } catch (error) {
        if (statusOf(error) === 404) return found; // no table: no runs
        throw unavailable("read", error);
      }
      return found;
    },
    async removeBefore(cutoff) {
      // ISO-8601 UTC strings of one format sort as their instants: one range per partition.
      const before = cutoff.toISOString();
      const filter = `(PartitionKey eq '${RUN_PARTITION}' and requestedAt lt '${before}') or (PartitionKey eq '${KEY_PARTITION}' and at lt '${before}')`;
      try {
        return await removeOld(table, {
          filter,
          select: ["PartitionKey", "RowKey"],
          concurrency: 1,
        });
      } catch (error) {
        throw unavailable("clean up", error);
      }
    },
    async noteRefusal(account, refusedAt) {
      try {
        const client = await table.client();
        if (!refusedAt) {
          await client.deleteEntity(ACCOUNT_PARTITION, account, limit()).catch((error) => {
            if (statusOf(error) !== 404) throw error;
          });
          return undefined;
        }
        const row = await readRow(table, ACCOUNT_PARTITION, account);
        const kept = typeof row?.refusedSince === "string" ? new Date(row.refusedSince) : undefined;
        if (kept && !Number.isNaN(kept.getTime())) return kept;
        await ensureTable();
        await client.upsertEntity(
          {
            partitionKey: ACCOUNT_PARTITION,
            rowKey: account,
            refusedSince: refusedAt.toISOString(),
          },
          "Replace",
          limit(),
        );
        return refusedAt;
      } catch (error) {
        if (statusOf(error) === 404 && !refusedAt) return undefined;
        throw unavailable("write", error);
      }
    },
    async releaseKey(keyHash, runId) {
      try {
        const client = await table.client();
        const held = await readKey(client, keyHash);
        if (held.entry?.runId !== runId) return;
        await client.deleteEntity(KEY_PARTITION, keyHash, { etag: held.etag, ...limit() });
      } catch (error) {
        const status = statusOf(error);
        if (status === 404 || status === 412) return;
        throw unavailable("write", error);
      }
    },
  };
}
