import { describe, expect, it } from "vitest";
import {
  memoryTransparencyStore,
  NOTICE_CLAIM_MS,
  noTransparencyStore,
} from "../../../../../shared/adapters/storage/memory/memoryTransparency.js";
import { seenIssuance } from "../../../../support/seenIssuances.js";

const T0 = new Date("2026-12-02T10:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

describe("the Certificate Transparency store in memory", () => {
  it("adds each issuance once per account, and keeps each account's apart", async () => {
    const store = memoryTransparencyStore();
    const one = seenIssuance({}, { id: "1" });
    expect(await store.addNew([one, one])).toEqual([one]);
    expect(await store.addNew([one])).toEqual([]);
    expect(await store.addNew([{ ...one, account: "fabrikam" }])).toHaveLength(1);
    await store.setCursor("contoso", "contoso.com", "1");
    expect(await store.cursor("contoso", "contoso.com")).toBe("1");
    expect(await store.cursor("fabrikam", "contoso.com")).toBeUndefined();
    expect((await store.list("contoso")).items).toEqual([one]);
  });

  it("lists newest first, and from `since` on (inclusive)", async () => {
    const store = memoryTransparencyStore();
    const old = seenIssuance({ firstSeenAt: T0 }, { id: "old" });
    const later = seenIssuance({ firstSeenAt: at(1) }, { id: "new" });
    await store.addNew([old, later]);
    expect((await store.list("contoso")).items.map((s) => s.issuance.id)).toEqual(["new", "old"]);
    expect((await store.list("contoso", { since: at(1) })).items.map((s) => s.issuance.id)).toEqual(
      ["new"],
    );
  });

  it("one claim per message until it is released, marked, or older than 15 minutes", async () => {
    const store = memoryTransparencyStore();
    await store.addNew([seenIssuance({}, { id: "1" })]);
    expect(await store.claimNotice("contoso", "1", T0)).toBe(true);
    expect(await store.claimNotice("contoso", "1", at(NOTICE_CLAIM_MS - 1))).toBe(false);
    expect(await store.claimNotice("contoso", "1", at(NOTICE_CLAIM_MS))).toBe(true);
    await store.releaseNotice("contoso", "1");
    expect(await store.claimNotice("contoso", "1", at(NOTICE_CLAIM_MS))).toBe(true);
    await store.markNotified("contoso", "1", at(NOTICE_CLAIM_MS));
    expect(await store.claimNotice("contoso", "1", at(10 * NOTICE_CLAIM_MS))).toBe(false);
    expect(await store.claimNotice("contoso", "absent", T0)).toBe(false);
  });

  it("the hour's allowance: exactly that many, then none until the next UTC hour", async () => {
    const store = memoryTransparencyStore();
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(await store.takeRequest("k", at(i * 60_000), 2));
    expect(taken).toEqual([true, true, false]);
    expect(await store.takeRequest("other", T0, 2)).toBe(true);
    expect(await store.takeRequest("k", new Date("2026-12-02T10:59:59.999Z"), 2)).toBe(false);
    expect(await store.takeRequest("k", new Date("2026-12-02T11:00:00Z"), 2)).toBe(true);
  });

  it("keeps the first acknowledgement, a verdict set later, and a pause", async () => {
    const store = memoryTransparencyStore();
    await store.addNew([seenIssuance({}, { id: "1" })]);
    const first = { at: T0, by: "cli", reason: "ours" };
    expect((await store.acknowledge("contoso", "1", first))?.acknowledged).toEqual(first);
    const second = await store.acknowledge("contoso", "1", { at: at(1), by: "x", reason: "no" });
    expect(second?.acknowledged).toEqual(first);
    expect(await store.acknowledge("contoso", "2", first)).toBeUndefined();
    await store.setVerdict("contoso", "1", {
      kind: "unexpected",
      since: T0,
      why: "w",
      recorded: true,
    });
    expect((await store.get("contoso", "1"))?.verdict).toMatchObject({ recorded: true });
    await store.pause("k", at(5), "rate limited");
    expect(await store.watcherState("k")).toEqual({ pausedUntil: at(5), reason: "rate limited" });
    expect(await store.watcherState("other")).toEqual({});
  });

  it("no storage is said by its kind", () => {
    expect(noTransparencyStore.kind).toBe("none");
  });
});
