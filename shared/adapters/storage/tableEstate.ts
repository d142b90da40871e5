import { z } from "zod";
import type { EstateKind } from "../../core/estate/estate.js";
import { type KeptEntry, type KeptEstate, keptOf } from "../../core/estate/kept.js";
import type { EstateReport } from "../../core/estate/report.js";
import type { EstateStore } from "../../core/ports/estate.js";
import { nameKey } from "./nameKey.js";
import {
  type LazyTable,
  lazyTable,
  odataLiteral,
  readRow,
  statusOf,
  type TableLocation,
  unavailableError,
} from "./table.js";
import { type RowAction, submitInBatches } from "./tableBatch.js";

/**
 * Each account's last estate in Azure Table storage: one partition per account, a head row
 * (time, counts) and one row per unmanaged-and-expiring certificate (kept.ts), so that ten
 * thousand of them fit where one entity (1 MiB) would not. A save writes the new rows and
 * deletes the gone ones in transactions, then the head; a row that does not read back is left
 * out, never a crash.
 */
export const ESTATE_TABLE = "certschedestate";
const HEAD = "head";
const ENTRY = "e-";
/** Rows read back of one account at most. */
export const MAX_KEPT_ROWS = 50_000;

export interface TableEstateOptions extends TableLocation {
  readonly tableName?: string;
  readonly timeoutMs?: number | undefined;
}

const KINDS = [
  "app-service-certificate",
  "application-gateway",
  "front-door",
  "key-vault",
] as const;
const entryRow = z.object({
  id: z.string().max(2_000),
  name: z.string().max(1_000),
  kind: z.enum(KINDS),
  subscriptionId: z.string().max(100),
  expiresAt: z.coerce.date().optional(),
  boundTo: z.string().max(1_000),
});
const countsSchema = z.record(z.string(), z.number());
const headRow = z.object({
  at: z.coerce.date(),
  expiringDays: z.number(),
  counts: z.string().transform((text) => countsSchema.parse(JSON.parse(text))),
  problems: z.number(),
  truncated: z.number(),
});

export function createTableEstateStore(options: TableEstateOptions): EstateStore {
  const tableName = options.tableName ?? ESTATE_TABLE;
  const table = lazyTable(options, tableName);
  const unavailable = unavailableError("STORAGE_UNAVAILABLE", "estate", tableName);
  return {
    kind: "table",
    last: async (account) => {
      try {
        return await readKept(table, account);
      } catch (error) {
        throw unavailable("read", error);
      }
    },
    save: async (report) => {
      try {
        await table.ensureTable();
        await writeKept(table, report);
      } catch (error) {
        throw unavailable("write", error);
      }
    },
  };
}

const partitionOf = (account: string) => `estate-${nameKey(account, 200)}`;
const entryKey = (id: string) => `${ENTRY}${nameKey(id)}`;

async function readKept(table: LazyTable, account: string): Promise<KeptEstate | undefined> {
  const partition = partitionOf(account);
  const head = await readRow(table, partition, HEAD);
  const parsedHead = head && headRow.safeParse(head);
  if (!parsedHead?.success) return undefined;
  const expiring: KeptEntry[] = [];
  for await (const row of entryRows(table, partition)) {
    const parsed = entryRow.safeParse(row);
    if (parsed.success) expiring.push(parsed.data as KeptEntry & { kind: EstateKind });
  }
  expiring.sort((a, b) => Number(a.expiresAt ?? 0) - Number(b.expiresAt ?? 0));
  const { counts, ...rest } = parsedHead.data;
  return { account, ...rest, counts: counts as unknown as KeptEstate["counts"], expiring };
}

async function* entryRows(table: LazyTable, partition: string) {
  const filter = `PartitionKey eq ${odataLiteral(partition)} and RowKey ge ${odataLiteral(ENTRY)} and RowKey lt ${odataLiteral("e.")}`;
  let read = 0;
  try {
    const rows = (await table.client()).listEntities<Record<string, unknown>>({
      queryOptions: { filter },
      ...table.limit(),
    });
    for await (const row of rows) {
      if (++read > MAX_KEPT_ROWS) return;
      yield row;
    }
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
  }
}

async function writeKept(table: LazyTable, report: EstateReport): Promise<void> {
  const partition = partitionOf(report.account);
  const kept = keptOf(report);
  const stored = new Set<string>();
  for await (const row of entryRows(table, partition)) stored.add(String(row.rowKey));
  const wanted = new Map(kept.expiring.map((entry) => [entryKey(entry.id), entry]));
  const actions: RowAction[] = [];
  for (const [rowKey, entry] of wanted) {
    if (stored.has(rowKey)) continue;
    const { expiresAt, ...fields } = entry;
    const row = { partitionKey: partition, rowKey, ...fields, ...(expiresAt ? { expiresAt } : {}) };
    actions.push(["upsert", row, "Replace"]);
  }
  for (const rowKey of stored) {
    if (!wanted.has(rowKey)) actions.push(["delete", { partitionKey: partition, rowKey }]);
  }
  const client = await table.client();
  const failed = await submitInBatches(client, actions, { limit: table.limit });
  if (failed.length > 0) throw failed[0]?.error ?? new Error("a transaction did not land");
  await client.upsertEntity(
    {
      partitionKey: partition,
      rowKey: HEAD,
      at: kept.at,
      expiringDays: kept.expiringDays,
      counts: JSON.stringify(kept.counts),
      problems: kept.problems,
      truncated: kept.truncated,
    },
    "Replace",
    table.limit(),
  );
}
