import { describe, expect, it } from "vitest";
import { memoryEstateStore } from "../../../../../shared/adapters/storage/memory/memoryEstate.js";
import { keptOf } from "../../../../../shared/core/estate/kept.js";
import { estateReport } from "../../../../../shared/core/estate/report.js";

const report = (account: string, at: Date) =>
  estateReport({
    account,
    discovered: [],
    records: [],
    now: at,
    expiringDays: 30,
    problems: [],
    truncated: 0,
  });

describe("the estate store in process", () => {
  it("keeps each account's last report apart, the next save replacing it", async () => {
    const store = memoryEstateStore();
    expect(store.kind).toBe("memory");
    expect(await store.last("a")).toBeUndefined();
    const first = report("a", new Date("2026-12-01T00:00:00Z"));
    const second = report("a", new Date("2026-12-02T00:00:00Z"));
    await store.save(first);
    await store.save(report("b", new Date("2026-11-01T00:00:00Z")));
    await store.save(second);
    expect(await store.last("a")).toEqual(keptOf(second));
    expect((await store.last("b"))?.at).toEqual(new Date("2026-11-01T00:00:00Z"));
  });
});
