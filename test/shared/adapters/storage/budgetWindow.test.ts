import type { TableClient } from "@azure/data-tables";
import { describe, expect, it } from "vitest";
import type { Counted } from "../../../../shared/adapters/storage/budgetRows.js";
import {
  countWindow,
  needOfRenewals,
  usageOf,
} from "../../../../shared/adapters/storage/budgetWindow.js";
import type { LazyTable } from "../../../../shared/adapters/storage/table.js";

const quota = { requests: 3, windowMs: 60_000, text: "3/1m" };

/** A table whose every query answers `rows`, keeping the filters it was asked. */
function tableOf(rows: Record<string, unknown>[]) {
  const filters: string[] = [];
  const client = {
    listEntities(options: { queryOptions: { filter: string } }) {
      filters.push(options.queryOptions.filter);
      return (async function* () {
        yield* rows;
      })();
    },
  } as unknown as TableClient;
  const table: LazyTable = {
    limit: () => ({}),
    client: async () => client,
    ensureTable: async () => {},
  };
  return { table, filters };
}

describe("countWindow", () => {
  it("leaves pending reads out unless asked, reads Timestamps, and stops once over the limit", async () => {
    const { table } = tableOf([
      { rowKey: "a", purpose: "renewal", runId: "r", timestamp: "2024-01-01T00:00:00Z" },
      { rowKey: "b", purpose: "read", state: "pending", timestamp: "2024-01-01T00:00:01Z" },
      { rowKey: "c", purpose: "read", state: "granted" },
      { rowKey: "d" },
      { rowKey: "e" },
      { rowKey: "f" },
    ]);
    const renewal = await countWindow(table, quota, 0, false);
    expect(renewal.map((r) => r.rowKey)).toEqual(["a", "c", "d", "e"]);
    expect(renewal[0]?.at).toBe(Date.parse("2024-01-01T00:00:00Z"));
    // A row without a readable Timestamp is counted as new as can be.
    expect(renewal[1]?.at).toBe(Number.POSITIVE_INFINITY);
    const read = await countWindow(table, quota, 0, true);
    expect(read.map((r) => r.rowKey)).toEqual(["a", "b", "c", "d"]);
  });
});

describe("usageOf", () => {
  it("splits the window into reads, this run's renewals and the others, and says when one frees", () => {
    const rows: Counted[] = [
      { rowKey: "a", purpose: "read", runId: undefined, at: 1_000 },
      { rowKey: "b", purpose: "renewal", runId: "mine", at: 2_000 },
      { rowKey: "c", purpose: "renewal", runId: "other", at: 3_000 },
    ];
    expect(usageOf(quota, rows, "mine", 11_000)).toEqual({
      quota,
      used: 3,
      reads: 1,
      thisRun: 1,
      others: 1,
      freesInMs: 50_000,
    });
    expect(usageOf(quota, [], "mine", 0)).toEqual({
      quota,
      used: 0,
      reads: 0,
      thisRun: 0,
      others: 0,
    });
  });
});

describe("needOfRenewals", () => {
  it("is the need when a list was sent lately, without learning it", async () => {
    const { table, filters } = tableOf([{ rowKey: "list" }]);
    let learned = 0;
    const need = await needOfRenewals(
      table,
      {
        need: async () => 2,
        learnNeed: async () => {
          learned += 1;
        },
      },
      Date.now(),
    );
    expect(need).toBe(2);
    expect(learned).toBe(0);
    expect(filters[0]).toContain("operation eq 'list'");
  });

  it("learns the need when no list was sent lately; unknown (infinite) when that fails or cannot be", async () => {
    const { table } = tableOf([]);
    expect(await needOfRenewals(table, { need: async () => 2, learnNeed: async () => {} }, 0)).toBe(
      2,
    );
    const failing = async () => {
      throw new Error("no list");
    };
    expect(await needOfRenewals(table, { need: async () => 2, learnNeed: failing }, 0)).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(await needOfRenewals(table, { need: async () => 2 }, 0)).toBe(Number.POSITIVE_INFINITY);
  });
});
