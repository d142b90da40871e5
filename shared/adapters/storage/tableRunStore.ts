import type { TableClient } from "@azure/data-tables";
import type { KeyClaim, KeyEntry, RunStore } from "../../core/ports/runStore.js";
import { advances, type Run } from "../../core/runs/run.js";
import { CertschedError, ValidationError } from "../../lib/errors.js";
import { fromRunRow, RUN_PARTITION, toRunRow } from "./rows/runRow.js";
import { failureOf, lazyTable, statusOf, type TableLocation } from "./table.js";

/** Next to the ledger's and the history's tables, in the same account. */
export const RUNS_TABLE = "certschedruns";
/** Idempotency keys share the runs' table, in their own partition. */
export const KEY_PARTITION = "key";

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
  const getClient = table.client;
  const unavailable = (action: string, error: unknown) =>
    new CertschedError(
      "RUNS_UNAVAILABLE",
      `run store: cannot ${action} table ${tableName} (${failureOf(error)})`,
      { retriable: true, cause: error },
    );
  const readKey = async (table: TableClient, keyHash: string) => {
    const row = await table.getEntity<Record<string, unknown>>(KEY_PARTITION, keyHash, limit());
    return { entry: entryOf(row), etag: row.etag };
  };

  return {
    kind: "table",
    async get(runId) {
      let row: Record<string, unknown>;
      try {
        row = await (await getClient()).getEntity<Record<string, unknown>>(
          RUN_PARTITION,
          runId,
          limit(),
        );
      } catch (error) {
        // 404: no such run, or no table yet (nothing was ever queued).
        if (statusOf(error) === 404) return undefined;
        throw unavailable("read", error);
      }
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
        const table = await getClient();
        const row = toRunRow(run);
        // Read the stored state, then write only if the run moves forward, under its etag: a
        // late write (an attempt that lost its lease, a poisoned copy) must not undo an outcome.
        for (let round = 0; round < 5; round++) {
          let stored: { state: unknown; resentAt: unknown; etag: string } | undefined;
          try {
            const current = await table.getEntity<Record<string, unknown>>(
              RUN_PARTITION,
              run.runId,
              { queryOptions: { select: ["state", "resentAt"] }, ...limit() },
            );
            stored = { state: current.state, resentAt: current.resentAt, etag: current.etag };
          } catch (error) {
            if (statusOf(error) !== 404) throw error;
          }
          if (options?.onlyIf !== undefined && stored?.state !== options.onlyIf) return;
          // Azurite answers a selected property a row lacks as null.
          if (
            options?.onlyIfNotResent &&
            stored?.resentAt !== undefined &&
            stored.resentAt !== null
          )
            return;
          try {
            if (!stored) {
              await table.createEntity(row, limit());
              return;
            }
            if (!advances(stored.state, run.state)) return;
            // Replace, not merge: a shorter summary must not keep the old one's trailing chunks.
            await table.updateEntity(row, "Replace", { etag: stored.etag, ...limit() });
            return;
          } catch (error) {
            const status = statusOf(error);
            if (status !== 409 && status !== 412 && status !== 404) throw error;
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
        const table = await getClient();
        // Two rounds at most: insert; else read, and replace an expired entry unless someone
        // else replaced it first (the etag), in which case theirs is the live one.
        for (let round = 0; round < 3; round++) {
          try {
            await table.createEntity(row, limit());
            return { claimed: true };
          } catch (error) {
            if (statusOf(error) !== 409) throw error;
          }
          let held: Awaited<ReturnType<typeof readKey>>;
          try {
            held = await readKey(table, keyHash);
          } catch (error) {
            if (statusOf(error) === 404) continue; // removed meanwhile: insert again
            throw error;
          }
          if (held.entry && now.getTime() - held.entry.at.getTime() < windowMs) {
            return { claimed: false, entry: held.entry };
          }
          try {
            await table.updateEntity(row, "Replace", { etag: held.etag, ...limit() });
            return { claimed: true };
          } catch (error) {
            if (statusOf(error) !== 412 && statusOf(error) !== 404) throw error;
          }
        }
        const final = await readKey(table, keyHash);
        if (final.entry) return { claimed: false, entry: final.entry };
        throw new Error("the idempotency key changed hands repeatedly");
      } catch (error) {
        throw unavailable("write", error);
      }
    },
    async listUnfinished(max) {
      const found: Run[] = [];
      try {
        const table = await getClient();
        const rows = table.listEntities<Record<string, unknown>>({
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
      let removed = 0;
      try {
        const table = await getClient();
        const keys: { partitionKey: string; rowKey: string }[] = [];
        const rows = table.listEntities<Record<string, unknown>>({
          queryOptions: { filter, select: ["PartitionKey", "RowKey"] },
          ...limit(),
        });
        for await (const row of rows) {
          keys.push({ partitionKey: String(row.partitionKey), rowKey: String(row.rowKey) });
        }
        for (const key of keys) {
          try {
            await table.deleteEntity(key.partitionKey, key.rowKey, limit());
            removed += 1;
          } catch (error) {
            if (statusOf(error) !== 404) throw error;
          }
        }
      } catch (error) {
        if (statusOf(error) === 404 && removed === 0) return 0; // no table: nothing to remove
        throw unavailable("clean up", error);
      }
      return removed;
    },
    async releaseKey(keyHash, runId) {
      try {
        const table = await getClient();
        const held = await readKey(table, keyHash);
        if (held.entry?.runId !== runId) return;
        await table.deleteEntity(KEY_PARTITION, keyHash, { etag: held.etag, ...limit() });
      } catch (error) {
        const status = statusOf(error);
        if (status === 404 || status === 412) return;
        throw unavailable("write", error);
      }
    },
  };
}
