import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import type { Run, RunState } from "../../shared/runs/run.js";
import { memoryRunStore, type RunStore } from "../../shared/runs/runStore.js";
import { tableRunStore } from "../../shared/runs/tableRunStore.js";
import { countOutcomes, type SweepSummary } from "../../shared/sweep/summary.js";
import { uniqueTableName } from "../functions/harness.js";

/**
 * A run only moves forward: queued, running, then succeeded or failed for good. Regression: the
 * store replaced whatever was there, so a late write (an attempt that lost its lease and noted
 * its error as "running", a queue send that failed after its message went out and marked the
 * run "failed") turned a succeeded run back.
 */

const stores: [string, () => RunStore][] = [
  ["memory", () => memoryRunStore()],
  [
    "table (Azurite)",
    () =>
      tableRunStore({
        connectionString: inject("azuriteTableConnectionString"),
        tableName: uniqueTableName("runsmonotonic"),
      }),
  ],
];

const SUMMARY: SweepSummary = {
  dryRun: false,
  startedAt: "2026-03-01T09:00:01.000Z",
  durationMs: 10,
  ledger: "table",
  results: [],
  rejected: [],
  counts: countOutcomes([], 0),
  failed: false,
  problems: [],
};

function run(runId: string, state: RunState, extra: Partial<Run> = {}): Run {
  return {
    runId,
    state,
    dryRun: false,
    requestedAt: new Date("2026-03-01T09:00:00.000Z"),
    requestedBy: "function-key",
    attempts: state === "queued" ? 0 : 1,
    ...extra,
  };
}

const FINISHED: RunState[] = ["succeeded", "failed"];
const ALL: RunState[] = ["queued", "running", "succeeded", "failed"];

describe.each(stores)("the %s run store", (_, make) => {
  it.each(FINISHED)("a %s run keeps its outcome whatever is written after it", async (done) => {
    const store = make();
    const id = randomUUID();
    await store.save(run(id, "queued"));
    await store.save(run(id, "running"));
    await store.save(run(id, done, { summary: SUMMARY }));
    for (const late of ALL) {
      await store.save(run(id, late, { problem: `late ${late}`, attempts: 9 }));
    }

    const stored = await store.get(id);
    expect(stored?.state).toBe(done);
    expect(stored?.problem).toBeUndefined();
    expect(stored?.attempts).toBe(1);
  });

  it("a running run does not go back to queued, and may be written running again", async () => {
    const store = make();
    const id = randomUUID();
    await store.save(run(id, "running"));
    await store.save(run(id, "queued"));
    expect((await store.get(id))?.state).toBe("running");

    await store.save(run(id, "running", { attempts: 2, problem: "attempt 1 failed" }));
    expect(await store.get(id)).toMatchObject({ state: "running", attempts: 2 });

    await store.save(run(id, "failed", { attempts: 2, problem: "poisoned" }));
    expect(await store.get(id)).toMatchObject({ state: "failed", problem: "poisoned" });
  });

  it("a late running write racing the finishing one never wins", async () => {
    const store = make();
    for (let i = 0; i < 8; i++) {
      const id = randomUUID();
      await store.save(run(id, "queued"));
      await Promise.all([
        store.save(run(id, "running", { problem: "late" })),
        store.save(run(id, "succeeded", { summary: SUMMARY })),
      ]);
      expect((await store.get(id))?.state).toBe("succeeded");
    }
  });
});
