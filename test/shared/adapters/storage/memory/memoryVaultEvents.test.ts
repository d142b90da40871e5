import { describe, expect, it } from "vitest";
import { memoryVaultEventStore } from "../../../../../shared/adapters/storage/memory/memoryVaultEvents.js";
import { eventKey } from "../../../../../shared/core/vaultEvents/vaultEvent.js";

/** The in-process store (no storage configured); its rules beside the table's: tableVaultEvents.test.ts. */

const T = new Date("2026-12-02T10:00:00.000Z");
const LEASE = 600_000;
const base = {
  kind: "new-version" as const,
  vaultName: "kv",
  certificateName: "www",
  version: "v1",
  eventId: "e1",
  claimedAt: T,
};
const one = { key: eventKey(base), ...base };

describe("the vault events store in memory", () => {
  it("is kind memory, and of claims racing in this process exactly one is the caller's", async () => {
    const store = memoryVaultEventStore();
    expect(store.kind).toBe("memory");
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => store.claim("default", one, LEASE)),
    );
    expect(outcomes.filter((o) => o === "claimed")).toHaveLength(1);
  });

  it("keeps a long outcome bounded, and a second completion does not make a claim possible", async () => {
    const store = memoryVaultEventStore();
    await store.claim("default", one, LEASE);
    await store.complete("default", one.key, "x".repeat(2_000), T);
    await store.release("default", one.key);
    expect(await store.claim("default", one, LEASE)).toBe("done");
    const [kept] = (await store.list("default", T)).items;
    expect(kept?.outcome?.length).toBeLessThanOrEqual(500);
  });
});
