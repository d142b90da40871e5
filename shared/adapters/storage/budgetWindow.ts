import type { QuotaUsage } from "../../core/ports/budget.js";
import type { ServiceQuota } from "../../core/quota/serviceQuota.js";
import { type Counted, datetime, LIST_FRESH_MS, PENDING } from "./budgetRows.js";
import { REQUEST_PARTITION } from "./rows/historyRow.js";
import type { LazyTable } from "./table.js";

/**
 * The window as the shared budget (sharedBudget.ts) counts it, on the storage clock: the request
 * partition's rows from a time on, their use as one run sees it, and what due renewals need
 * (known from a list sent lately).
 */

/**
 * Rows with a Timestamp at or after `from`, up to limit + 1 (the count stops once over);
 * pending reads only with `pendingReads` (a read's own count takes them in, a renewal's not).
 */
export async function countWindow(
  table: LazyTable,
  quota: ServiceQuota,
  from: number,
  pendingReads: boolean,
): Promise<Counted[]> {
  const rows: Counted[] = [];
  const filter = `PartitionKey eq '${REQUEST_PARTITION}' and Timestamp ge ${datetime(new Date(from))}`;
  const entities = (await table.client()).listEntities<Record<string, unknown>>({
    queryOptions: { filter },
    ...table.limit(),
  });
  for await (const row of entities) {
    if (!pendingReads && row.purpose === "read" && row.state === PENDING) continue;
    const at = typeof row.timestamp === "string" ? Date.parse(row.timestamp) : Number.NaN;
    rows.push({
      rowKey: String(row.rowKey),
      purpose: typeof row.purpose === "string" ? row.purpose : undefined,
      runId: typeof row.runId === "string" ? row.runId : undefined,
      // A row without a readable Timestamp is counted as new as can be: never left out.
      at: Number.isNaN(at) ? Number.POSITIVE_INFINITY : at,
    });
    if (rows.length > quota.requests) break;
  }
  return rows;
}

/** The window's `rows` as run `runId` sees them at `now` (storage clock). */
export function usageOf(
  quota: ServiceQuota,
  rows: readonly Counted[],
  runId: string,
  now: number,
): QuotaUsage {
  let reads = 0;
  let thisRun = 0;
  for (const row of rows) {
    if (row.purpose === "read") reads += 1;
    else if (row.purpose === "renewal" && row.runId === runId) thisRun += 1;
  }
  const oldest = Math.min(...rows.map((r) => r.at));
  return {
    quota,
    used: rows.length,
    reads,
    thisRun,
    others: rows.length - reads - thisRun,
    ...(Number.isFinite(oldest) ? { freesInMs: Math.max(0, oldest + quota.windowMs - now) } : {}),
  };
}

/** Whether a list request was sent within LIST_FRESH_MS before `now` (storage clock). */
export async function listSentSince(table: LazyTable, now: number): Promise<boolean> {
  const filter = `PartitionKey eq '${REQUEST_PARTITION}' and operation eq 'list' and Timestamp ge ${datetime(new Date(now - LIST_FRESH_MS))}`;
  const entities = (await table.client()).listEntities<Record<string, unknown>>({
    queryOptions: { filter, select: ["RowKey"] },
    ...table.limit(),
  });
  for await (const _ of entities) return true;
  return false;
}

/** Where the need of renewals comes from (SharedBudgetOptions.need and learnNeed). */
export interface RenewalNeed {
  readonly need: () => Promise<number>;
  readonly learnNeed?: (() => Promise<void>) | undefined;
}

/**
 * What due renewals need, for a read. A read may never take what a due renewal needs, so the
 * need must be known first: from a list made within LIST_FRESH_MS, or from one made now
 * (learnNeed, once for every read waiting on it). Unknown: the whole budget (the read is
 * refused, and says why).
 */
export async function needOfRenewals(
  table: LazyTable,
  source: RenewalNeed,
  now: number,
): Promise<number> {
  let known = await listSentSince(table, now);
  if (!known && source.learnNeed) {
    try {
      await source.learnNeed();
      known = true;
    } catch {
      known = false;
    }
  }
  return known ? source.need() : Number.POSITIVE_INFINITY;
}
