import { describe, expect, inject, it } from "vitest";
import { cleanupHistory } from "../../../functions/cleanupHistory.js";
import { memoryRunStore } from "../../../shared/adapters/storage/memory/memoryRunStore.js";
import { tableRunStore } from "../../../shared/adapters/storage/tableRunStore.js";
import type { RunStore } from "../../../shared/core/ports/runStore.js";
import type { Run } from "../../../shared/core/runs/run.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { startHarness, uniqueTableName } from "../../support/app.js";
import { fakeClock } from "../../support/clock.js";
import { timer } from "../../support/invoke.js";

const CUTOFF = new Date("2026-03-01T00:00:00.000Z");
const at = (ms: number) => new Date(CUTOFF.getTime() + ms);

function run(id: string, requestedAt: Date): Run {
  return {
    runId: `00000000-0000-4000-8000-00000000000${id}`,
    state: "queued",
    dryRun: false,
    requestedAt,
    requestedBy: "function-key",
    attempts: 0,
  };
}

const stores: [string, () => RunStore][] = [
  ["memory", () => memoryRunStore()],
  [
    "table (Azurite)",
    () =>
      tableRunStore({
        connectionString: inject("azuriteTableConnectionString"),
        tableName: uniqueTableName("runsretention"),
      }),
  ],
];

describe.each(stores)("retention of the %s run store", (_, make) => {
  it("removes runs and keys from before the cutoff; one from exactly the cutoff stays", async () => {
    const store = make();
    await store.save(run("1", at(-1)));
    await store.save(run("2", at(0)));
    await store.save(run("3", at(60_000)));
    const entry = (id: string, when: Date) => ({
      runId: run(id, when).runId,
      dryRun: false,
      at: when,
    });
    await store.claimKey("a".repeat(64), entry("1", at(-1)), at(-1), 1);
    await store.claimKey("b".repeat(64), entry("2", at(0)), at(0), 1);

    expect(await store.removeBefore(CUTOFF)).toBe(2);

    expect(await store.get(run("1", CUTOFF).runId)).toBeUndefined();
    expect((await store.get(run("2", CUTOFF).runId))?.requestedAt).toEqual(at(0));
    expect((await store.get(run("3", CUTOFF).runId))?.requestedAt).toEqual(at(60_000));
    // The removed key is free; the kept one still names its run (a 1-day window from at(0)).
    const later = at(1000);
    expect(await store.claimKey("a".repeat(64), entry("3", later), later, 86_400_000)).toEqual({
      claimed: true,
    });
    expect(
      await store.claimKey("b".repeat(64), entry("3", later), later, 86_400_000),
    ).toMatchObject({
      claimed: false,
      entry: { runId: run("2", CUTOFF).runId },
    });
  });

  it("removes nothing from an empty store", async () => {
    expect(await make().removeBefore(CUTOFF)).toBe(0);
  });
});

describe("the daily cleanup", () => {
  it("removes queued runs older than CERTSCHED_HISTORY_RETENTION with the history", async () => {
    const app = await startHarness({ certificates: [] });
    try {
      const clock = fakeClock("2026-03-01T04:30:00.000Z");
      const store = memoryRunStore();
      await app.configure(
        { CERTSCHED_HISTORY_RETENTION: "1d" },
        { now: clock.now, runs: { store } },
      );
      await store.save(run("1", new Date(clock.now().getTime() - DAY_MS - 1)));
      await store.save(run("2", new Date(clock.now().getTime() - DAY_MS)));

      await cleanupHistory(timer(), app.context("cleanupHistory"));

      expect(await store.get(run("1", CUTOFF).runId)).toBeUndefined();
      expect(await store.get(run("2", CUTOFF).runId)).toBeDefined();
      expect(app.logs.map((l) => l.message)).toContain(
        "certsched run store cleanup: removed 1 row(s) from before 2026-02-28T04:30:00.000Z",
      );
    } finally {
      await app.close();
    }
  });
});
