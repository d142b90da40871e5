import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { describe, expect, inject, it } from "vitest";
import { memoryRunStore } from "../../../../shared/adapters/storage/memory/memoryRunStore.js";
import { tableRunStore } from "../../../../shared/adapters/storage/tableRunStore.js";
import type { RunStore } from "../../../../shared/core/ports/runStore.js";
import { countOutcomes, type SweepSummary } from "../../../../shared/core/renewal/summary.js";
import type { Run, RunState } from "../../../../shared/core/runs/run.js";
import { uniqueTableName } from "../../../support/app.js";
import { propertyRuns } from "../../../support/fastCheck.js";

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

  it("onlyIf: written only over a run stored in that state, never created", async () => {
    const store = make();
    const id = randomUUID();
    await store.save(run(id, "failed"), { onlyIf: "queued" });
    expect(await store.get(id)).toBeUndefined();

    await store.save(run(id, "queued"));
    await store.save(run(id, "running"));
    await store.save(run(id, "failed", { problem: "not queued" }), { onlyIf: "queued" });
    expect(await store.get(id)).toMatchObject({ state: "running", problem: undefined });

    const other = randomUUID();
    await store.save(run(other, "queued"));
    await store.save(run(other, "failed", { problem: "not queued" }), { onlyIf: "queued" });
    expect(await store.get(other)).toMatchObject({ state: "failed", problem: "not queued" });
  });

  it("onlyIfNotResent: a run is sent again once; the resend and the undelivered mark round-trip", async () => {
    const store = make();
    const id = randomUUID();
    await store.save(run(id, "queued"));
    const first = new Date("2026-03-01T09:05:00.000Z");
    await store.save(run(id, "queued", { resentAt: first }), {
      onlyIf: "queued",
      onlyIfNotResent: true,
    });
    await store.save(run(id, "queued", { resentAt: new Date("2026-03-01T09:05:00.001Z") }), {
      onlyIf: "queued",
      onlyIfNotResent: true,
    });
    expect((await store.get(id))?.resentAt).toEqual(first);

    await store.save(run(id, "failed", { resentAt: first, undelivered: true }));
    expect(await store.get(id)).toMatchObject({ state: "failed", undelivered: true });
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

describe("any order of writes (memory store)", () => {
  const STAGE: Record<RunState, number> = { queued: 0, running: 1, succeeded: 2, failed: 2 };

  it("the stored state never moves back, and the first finished state stays for good", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...ALL), { minLength: 1, maxLength: 12 }),
        async (writes) => {
          const store = memoryRunStore();
          const id = "6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5";
          // The model: a write lands unless the run is finished or the write is behind it.
          let expected: RunState | undefined;
          for (const state of writes) {
            await store.save(run(id, state));
            const lands =
              expected === undefined ||
              (expected !== "succeeded" &&
                expected !== "failed" &&
                STAGE[state] >= STAGE[expected]);
            if (lands) expected = state;
            expect((await store.get(id))?.state).toBe(expected);
          }
          const firstFinished = writes.find((w) => w === "succeeded" || w === "failed");
          if (firstFinished) expect(expected).toBe(firstFinished);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});
