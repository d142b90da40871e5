import { describe, expect, it } from "vitest";
import { memoryEstateStore } from "../../../../shared/adapters/storage/memory/memoryEstate.js";
import { estateReport } from "../../../../shared/core/estate/report.js";
import { readEstateStatus } from "../../../../shared/usecases/estate/lastEstate.js";

/** The last estate as the dashboard reads it: best effort, never a failed page. */

describe("readEstateStatus", () => {
  it("no store, or storage off: nothing to show", async () => {
    expect(await readEstateStatus(undefined, "default")).toBeUndefined();
    const none = { kind: "none" as const, last: async () => undefined };
    expect(await readEstateStatus(none, "default")).toBeUndefined();
  });

  it("a store with nothing kept yet: the account with no report", async () => {
    expect(await readEstateStatus(memoryEstateStore(), "contoso")).toEqual({
      account: "contoso",
      kept: undefined,
    });
  });

  it("what the timer kept", async () => {
    const store = memoryEstateStore();
    const at = new Date("2026-12-03T05:40:00Z");
    await store.save(
      estateReport({
        account: "contoso",
        discovered: [],
        records: [],
        problems: [],
        truncated: 0,
        now: at,
        expiringDays: 30,
      }),
    );
    const status = await readEstateStatus(store, "contoso");
    expect(status?.kept?.at).toEqual(at);
    expect(status?.problem).toBeUndefined();
  });

  it("a store that throws is a problem line, redacted", async () => {
    const secret = `Bearer eyJhbGciOiJSUzI1NiJ9.${"a".repeat(40)}.${"b".repeat(40)}`;
    const failing = {
      kind: "table" as const,
      last: async () => {
        throw new Error(`table answered 503 for ${secret}`);
      },
    };
    const status = await readEstateStatus(failing, "contoso");
    expect(status?.account).toBe("contoso");
    expect(status?.problem).toContain(
      "the last estate report could not be read: table answered 503",
    );
    expect(status?.problem).not.toContain("eyJhbGciOiJSUzI1NiJ9");
  });
});
