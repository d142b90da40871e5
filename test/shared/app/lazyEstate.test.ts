import { describe, expect, inject, it } from "vitest";
import { memoryEstateOnFirstUse, tableEstateOnFirstUse } from "../../../shared/app/lazyEstate.js";
import { estateReport } from "../../../shared/core/estate/report.js";
import { uniqueTableName } from "../../support/app.js";

const report = estateReport({
  account: "contoso",
  discovered: [],
  records: [],
  now: new Date("2026-12-02T05:40:00Z"),
  expiringDays: 30,
  problems: [],
  truncated: 0,
});

describe("the estate store built on first use", () => {
  it("says its kind at once, and keeps what the store keeps once loaded", async () => {
    expect(tableEstateOnFirstUse({ connectionString: "UseDevelopmentStorage=true" }).kind).toBe(
      "table",
    );
    const table = tableEstateOnFirstUse({
      connectionString: inject("azuriteTableConnectionString"),
      tableName: uniqueTableName("estlazy"),
    });
    const memory = memoryEstateOnFirstUse();
    expect(memory.kind).toBe("memory");
    for (const store of [table, memory]) {
      expect(await store.last("contoso")).toBeUndefined();
      await store.save(report);
      expect((await store.last("contoso"))?.at).toEqual(report.at);
    }
  });
});
