import { describe, expect, inject, it } from "vitest";
import { memoryRunStore } from "../../../../shared/adapters/storage/memory/memoryRunStore.js";
import { tableRunStore } from "../../../../shared/adapters/storage/tableRunStore.js";
import type { RunStore } from "../../../../shared/core/ports/runStore.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { uniqueTableName } from "../../../support/app.js";

const day = (n: number) => new Date(Date.UTC(2026, 2, 1) + n * DAY_MS);

describe.each([
  [
    "table",
    () =>
      tableRunStore({
        connectionString: inject("azuriteTableConnectionString"),
        tableName: uniqueTableName("refusals"),
      }),
  ],
  ["memory", () => memoryRunStore()],
] as const)("noteRefusal (%s): an account's unbroken stretch of refused credentials", (_, make) => {
  it("keeps the first refusal of the stretch, per account, until the credentials are accepted", async () => {
    const store: RunStore = make();
    const note = store.noteRefusal?.bind(store);
    if (!note) throw new Error("the store keeps no stretch");
    // Accepted before anything was noted (no table yet): nothing to end.
    expect(await note("contoso", undefined)).toBeUndefined();
    expect(await note("contoso", day(0))).toEqual(day(0));
    expect(await note("contoso", day(1))).toEqual(day(0));
    expect(await note("fabrikam", day(2))).toEqual(day(2));
    expect(await note("contoso", day(3))).toEqual(day(0));
    expect(await note("contoso", undefined)).toBeUndefined();
    expect(await note("contoso", day(5))).toEqual(day(5));
    expect(await note("fabrikam", day(6))).toEqual(day(2));
  });
});
