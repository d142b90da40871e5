import { describe, expect, it } from "vitest";
import { memoryRunStore } from "../../../../../shared/adapters/storage/memory/memoryRunStore.js";
import type { Run, RunState } from "../../../../../shared/core/runs/run.js";
import { HOUR_MS } from "../../../../../shared/lib/time.js";

/** A run id (a UUID, as the row mapper requires) per short name. */
const ids = new Map<string, string>();
const id = (name: string) => {
  let value = ids.get(name);
  if (value === undefined) {
    value = `00000000-0000-4000-8000-${String(ids.size + 1).padStart(12, "0")}`;
    ids.set(name, value);
  }
  return value;
};

const REQUESTED = new Date("2026-03-01T09:00:00.000Z");

function run(runId: string, state: RunState, extra: Partial<Run> = {}): Run {
  return {
    runId: id(runId),
    state,
    dryRun: false,
    requestedAt: REQUESTED,
    requestedBy: "function-key",
    attempts: state === "queued" ? 0 : 1,
    ...extra,
  };
}

describe("memoryRunStore", () => {
  it("is the memory kind; an unknown run is undefined", async () => {
    const store = memoryRunStore();
    expect(store.kind).toBe("memory");
    expect(await store.get(id("nope"))).toBeUndefined();
  });

  it("reads back what it saved, through the table's row mappers", async () => {
    const store = memoryRunStore();
    const saved = run("r1", "running", {
      startedAt: new Date("2026-03-01T09:00:05.000Z"),
      problem: "attempt 1 failed",
      requestedBy: "entra:Ops (oid)",
    });
    await store.save(saved);
    const read = await store.get(id("r1"));
    expect(read).toEqual(saved);
    expect(read).not.toBe(saved);
  });

  it("a run only moves forward: a finished one is never overwritten", async () => {
    const store = memoryRunStore();
    await store.save(run("r1", "succeeded"));
    await store.save(run("r1", "running"));
    await store.save(run("r1", "failed"));
    expect((await store.get(id("r1")))?.state).toBe("succeeded");
    await store.save(run("r2", "running"));
    await store.save(run("r2", "queued"));
    expect((await store.get(id("r2")))?.state).toBe("running");
    await store.save(run("r2", "running", { attempts: 2 }));
    expect((await store.get(id("r2")))?.attempts).toBe(2);
  });

  it("onlyIf writes only over that stored state", async () => {
    const store = memoryRunStore();
    await store.save(run("r1", "running"), { onlyIf: "queued" });
    expect(await store.get(id("r1"))).toBeUndefined();
    await store.save(run("r1", "queued"));
    await store.save(run("r1", "failed", { problem: "lost" }), { onlyIf: "running" });
    expect((await store.get(id("r1")))?.state).toBe("queued");
    await store.save(run("r1", "failed", { problem: "lost" }), { onlyIf: "queued" });
    expect((await store.get(id("r1")))?.state).toBe("failed");
  });

  it("onlyIfNotResent leaves a run that was sent again", async () => {
    const store = memoryRunStore();
    await store.save(run("r1", "queued", { resentAt: new Date("2026-03-01T09:10:00.000Z") }));
    await store.save(run("r1", "failed"), { onlyIfNotResent: true });
    expect((await store.get(id("r1")))?.state).toBe("queued");
    await store.save(run("r2", "queued"));
    await store.save(run("r2", "failed"), { onlyIfNotResent: true });
    expect((await store.get(id("r2")))?.state).toBe("failed");
  });

  it("a key is held for its window, and free at exactly the window's end", async () => {
    const store = memoryRunStore();
    const at = new Date("2026-03-01T09:00:00.000Z");
    const first = { runId: "r1", dryRun: false, at };
    expect(await store.claimKey("k", first, at, HOUR_MS)).toEqual({ claimed: true });
    const second = { runId: "r2", dryRun: true, at };
    const justBefore = new Date(at.getTime() + HOUR_MS - 1);
    expect(await store.claimKey("k", second, justBefore, HOUR_MS)).toEqual({
      claimed: false,
      entry: first,
    });
    const atEnd = new Date(at.getTime() + HOUR_MS);
    expect(await store.claimKey("k", { ...second, at: atEnd }, atEnd, HOUR_MS)).toEqual({
      claimed: true,
    });
    expect(await store.claimKey("other", first, at, HOUR_MS)).toEqual({ claimed: true });
  });

  it("releaseKey frees a key only for the run that holds it", async () => {
    const store = memoryRunStore();
    const at = new Date("2026-03-01T09:00:00.000Z");
    await store.claimKey("k", { runId: "r1", dryRun: false, at }, at, HOUR_MS);
    await store.releaseKey("k", "r2");
    expect(
      (await store.claimKey("k", { runId: "r3", dryRun: false, at }, at, HOUR_MS)).claimed,
    ).toBe(false);
    await store.releaseKey("k", "r1");
    expect(
      (await store.claimKey("k", { runId: "r3", dryRun: false, at }, at, HOUR_MS)).claimed,
    ).toBe(true);
  });

  it("lists unfinished runs up to the limit, in the order they were first saved", async () => {
    const store = memoryRunStore();
    await store.save(run("a", "queued"));
    await store.save(run("b", "succeeded"));
    await store.save(run("c", "running"));
    await store.save(run("d", "failed"));
    await store.save(run("e", "queued"));
    expect((await store.listUnfinished(10)).map((r) => r.runId)).toEqual(["a", "c", "e"].map(id));
    expect((await store.listUnfinished(2)).map((r) => r.runId)).toEqual(["a", "c"].map(id));
    expect(await store.listUnfinished(0)).toEqual([]);
  });

  it("removeBefore removes runs requested and keys taken before the cutoff, and counts them", async () => {
    const store = memoryRunStore();
    const cutoff = new Date(REQUESTED.getTime() + 1);
    await store.save(run("old", "succeeded"));
    await store.save(run("atCutoff", "succeeded", { requestedAt: cutoff }));
    await store.claimKey("oldKey", { runId: "old", dryRun: false, at: REQUESTED }, REQUESTED, 1);
    await store.claimKey("newKey", { runId: "x", dryRun: false, at: cutoff }, cutoff, 1);
    expect(await store.removeBefore(cutoff)).toBe(2);
    expect(await store.get(id("old"))).toBeUndefined();
    expect((await store.get(id("atCutoff")))?.runId).toBe(id("atCutoff"));
    const later = new Date(cutoff.getTime() + HOUR_MS);
    const entry = { runId: "y", dryRun: false, at: later };
    // newKey is still held (a long window); oldKey is gone.
    expect((await store.claimKey("newKey", entry, later, 2 * HOUR_MS)).claimed).toBe(false);
    expect((await store.claimKey("oldKey", entry, later, 2 * HOUR_MS)).claimed).toBe(true);
    expect(await store.removeBefore(cutoff)).toBe(0);
  });
});
