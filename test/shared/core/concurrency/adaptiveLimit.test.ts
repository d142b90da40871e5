import { describe, expect, it } from "vitest";
import { adaptiveLimit } from "../../../../shared/core/concurrency/adaptiveLimit.js";
import { type AimdState, DEFAULT_RULE } from "../../../../shared/core/concurrency/aimd.js";
import type { SharedLimitStore } from "../../../../shared/core/ports/concurrency.js";

const rule = (start: number, cap: number) => ({ ...DEFAULT_RULE, start, cap });

/** One row in memory with ETags, as the table keeps it; `fail` makes every call throw. */
function memoryRow(clock: () => number) {
  let row: { state: AimdState; etag: string; updatedAt: Date } | undefined;
  let version = 0;
  const calls = { reads: 0, writes: 0, conflicts: 0 };
  const control = {
    fail: false,
    /** The next writes answer "conflict" after another writer changed the row. */
    interleave: undefined as ((row: AimdState) => AimdState) | undefined,
  };
  const store: SharedLimitStore = {
    async read() {
      calls.reads += 1;
      if (control.fail) throw new Error("table down (503)");
      return row ? { ...row, state: { ...row.state } } : undefined;
    },
    async write(state, etag) {
      calls.writes += 1;
      if (control.fail) throw new Error("table down (503)");
      if (control.interleave && row) {
        // Another process wrote between this one's read and write.
        row = {
          state: control.interleave(row.state),
          etag: `v${++version}`,
          updatedAt: new Date(clock()),
        };
        control.interleave = undefined;
      }
      if ((row?.etag ?? undefined) !== etag) {
        calls.conflicts += 1;
        return "conflict";
      }
      row = { state: { ...state }, etag: `v${++version}`, updatedAt: new Date(clock()) };
      return "written";
    },
  };
  return {
    store,
    calls,
    control,
    row: () => row,
    set(state: AimdState, updatedAt = new Date(clock())) {
      row = { state, etag: `v${++version}`, updatedAt };
    },
  };
}

describe("adaptiveLimit without storage", () => {
  it("starts at the configured value and follows the AIMD rule locally", async () => {
    const limit = adaptiveLimit({ rule: rule(4, 8), now: () => 0 });
    expect(limit.kind).toBe("adaptive");
    expect(limit.current()).toBe(4);
    for (let i = 0; i < 4; i++) limit.observe({ kind: "answered", latencyMs: 10, epoch: 0 });
    expect(limit.current()).toBe(5);
    limit.observe({ kind: "throttled", epoch: limit.epoch() });
    expect(limit.current()).toBe(2);
    expect(limit.epoch()).toBe(1);
    await limit.refresh();
    await limit.settled();
    expect(limit.takeWarnings()).toEqual([]);
  });
});

describe("adaptiveLimit shared through storage", () => {
  it("creates the row on its first change, and a second process starts from it", async () => {
    let t = 1_000;
    const mem = memoryRow(() => t);
    const a = adaptiveLimit({ rule: rule(8, 16), store: mem.store, now: () => t });
    await a.refresh();
    a.observe({ kind: "throttled", epoch: a.epoch() });
    await a.settled();
    expect(mem.row()?.state).toMatchObject({ limit: 4, epoch: 1 });
    const b = adaptiveLimit({ rule: rule(8, 16), store: mem.store, now: () => t });
    expect(b.current()).toBe(8);
    await b.refresh();
    expect(b.current()).toBe(4);
    expect(b.epoch()).toBe(1);
    t += 10;
  });

  it("applies one decrease per epoch across processes: the second one's is covered", async () => {
    const mem = memoryRow(() => 0);
    const a = adaptiveLimit({ rule: rule(16, 16), store: mem.store, now: () => 0 });
    const b = adaptiveLimit({ rule: rule(16, 16), store: mem.store, now: () => 0 });
    await Promise.all([a.refresh(), b.refresh()]);
    a.observe({ kind: "throttled", epoch: 0 });
    b.observe({ kind: "throttled", epoch: 0 });
    await Promise.all([a.settled(), b.settled()]);
    expect(mem.row()?.state).toMatchObject({ limit: 8, epoch: 1 });
    expect(a.current()).toBe(8);
    expect(b.current()).toBe(8);
  });

  it("retries a write that lost to another process, applying its change to what that wrote", async () => {
    const mem = memoryRow(() => 0);
    mem.set({ limit: 10, epoch: 2, healthy: 0 });
    const a = adaptiveLimit({ rule: rule(10, 32), store: mem.store, now: () => 0 });
    await a.refresh();
    // Another process grew it meanwhile (same epoch): this one's shrink applies to 11.
    mem.control.interleave = (s) => ({ ...s, limit: s.limit + 1 });
    a.observe({ kind: "throttled", epoch: 2 });
    await a.settled();
    expect(mem.calls.conflicts).toBe(1);
    expect(mem.row()?.state).toMatchObject({ limit: 5, epoch: 3 });
    expect(a.current()).toBe(5);
  });

  it("sees another process's decrease while its pool runs (read at most once a refresh period)", async () => {
    let t = 0;
    const mem = memoryRow(() => t);
    const a = adaptiveLimit({
      rule: rule(12, 12),
      store: mem.store,
      now: () => t,
      refreshEveryMs: 1_000,
    });
    await a.refresh();
    const reads = mem.calls.reads;
    mem.set({ limit: 3, epoch: 4, healthy: 0 });
    expect(a.current()).toBe(12); // read 0 ms ago: not again yet
    expect(mem.calls.reads).toBe(reads);
    t = 1_000;
    a.current(); // starts a read in the background
    await a.settled();
    expect(a.current()).toBe(3);
    expect(a.epoch()).toBe(4);
  });

  it("forgets a row older than staleAfterMs: the account starts again at the configured value", async () => {
    const t = 10 * 3_600_000;
    const mem = memoryRow(() => t);
    mem.set({ limit: 2, epoch: 9, healthy: 0 }, new Date(t - 2 * 3_600_000));
    const a = adaptiveLimit({ rule: rule(8, 8), store: mem.store, now: () => t });
    await a.refresh();
    expect(a.current()).toBe(8);
    a.observe({ kind: "throttled", epoch: a.epoch() });
    await a.settled();
    expect(mem.row()?.state).toMatchObject({ limit: 4, epoch: 1 });
  });

  it("goes on locally when the table fails, says so once, and shares again once it works", async () => {
    const mem = memoryRow(() => 0);
    mem.control.fail = true;
    const a = adaptiveLimit({ rule: rule(8, 8), store: mem.store, now: () => 0 });
    await a.refresh();
    a.observe({ kind: "throttled", epoch: a.epoch() });
    a.observe({ kind: "throttled", epoch: a.epoch() });
    await a.settled();
    expect(a.current()).toBe(2);
    const warnings = a.takeWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /cannot read the shared limit, going on with this process's own \(table down \(503\)\)/,
    );
    expect(a.takeWarnings()).toEqual([]);
    mem.control.fail = false;
    a.observe({ kind: "throttled", epoch: a.epoch() });
    await a.settled();
    expect(a.current()).toBe(1);
    expect(mem.row()?.state).toMatchObject({ limit: 1 });
  });

  it("keeps its own decrease when a read returns the row before it was written", async () => {
    const mem = memoryRow(() => 0);
    mem.set({ limit: 8, epoch: 0, healthy: 0 });
    const a = adaptiveLimit({ rule: rule(8, 8), store: mem.store, now: () => 0 });
    await a.refresh();
    mem.control.fail = true; // the decrease cannot be written
    a.observe({ kind: "throttled", epoch: 0 });
    await a.settled();
    mem.control.fail = false;
    await a.refresh(); // reads epoch 0, older than this process's epoch 1
    expect(a.current()).toBe(4);
  });
});
