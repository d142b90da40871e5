import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AimdRule,
  type AimdSignal,
  type AimdState,
  adopt,
  applyChange,
  changeOf,
  clampLimit,
  DEFAULT_RULE,
  initialState,
  isSlow,
  nextState,
  windowOf,
} from "../../../../shared/core/concurrency/aimd.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const rule = (start: number, cap: number): AimdRule => ({ ...DEFAULT_RULE, start, cap });
const answered = (latencyMs: number, epoch = 0): AimdSignal => ({
  kind: "answered",
  latencyMs,
  epoch,
});

function feed(state: AimdState, signals: AimdSignal[], r: AimdRule): AimdState {
  return signals.reduce((s, signal) => nextState(s, signal, r), state);
}

describe("initialState and clampLimit", () => {
  it("starts at the configured value, within [1, cap]", () => {
    expect(initialState(rule(8, 8))).toEqual({ limit: 8, epoch: 0, healthy: 0 });
    expect(initialState(rule(8, 4)).limit).toBe(4);
    expect(initialState(rule(0, 4)).limit).toBe(1);
  });

  it("reads anything that is not a finite number as 1, and rounds down", () => {
    expect(clampLimit(Number.NaN, 8)).toBe(1);
    expect(clampLimit(Number.POSITIVE_INFINITY, 8)).toBe(1);
    expect(clampLimit(5.9, 8)).toBe(5);
    expect(clampLimit(5, Number.NaN)).toBe(1);
    expect(clampLimit(-3, 8)).toBe(1);
  });
});

describe("nextState: additive increase", () => {
  it("grows by one after a healthy window (as many answers as the limit), up to the cap", () => {
    const r = rule(2, 4);
    let s = initialState(r);
    s = nextState(s, answered(10), r);
    expect(s).toMatchObject({ limit: 2, healthy: 1, samples: 1 });
    s = nextState(s, answered(12), r);
    // A full sample (2 answers, mean 11 ms) is the first baseline.
    expect(s).toMatchObject({ limit: 3, healthy: 0, baselineMs: 11, samples: 0 });
    s = feed(s, [answered(10), answered(10), answered(10)], r);
    expect(s.limit).toBe(4);
    s = feed(
      s,
      Array.from({ length: 20 }, () => answered(10)),
      r,
    );
    expect(s.limit).toBe(4);
  });

  it("never grows with the cap at the start value (the default): it only recovers", () => {
    const r = rule(8, 8);
    expect(
      feed(
        initialState(r),
        Array.from({ length: 100 }, () => answered(5)),
        r,
      ).limit,
    ).toBe(8);
  });
});

describe("nextState: multiplicative decrease", () => {
  it("halves on a 429 and on a timeout, and starts a new epoch", () => {
    const r = rule(16, 32);
    const s = nextState(initialState(r), { kind: "throttled", epoch: 0 }, r);
    expect(s).toMatchObject({ limit: 8, epoch: 1, healthy: 0 });
    expect(nextState(s, { kind: "timeout", epoch: 1 }, r)).toMatchObject({ limit: 4, epoch: 2 });
  });

  it("decreases once per window: a 429 of a renewal sent before the last decrease is ignored", () => {
    const r = rule(16, 32);
    let s = nextState(initialState(r), { kind: "throttled", epoch: 0 }, r);
    s = feed(
      s,
      [
        { kind: "throttled", epoch: 0 },
        { kind: "timeout", epoch: 0 },
      ],
      r,
    );
    expect(s).toMatchObject({ limit: 8, epoch: 1 });
  });

  it("halves when a sample's mean is above 3× the baseline, beyond the floor", () => {
    const r = rule(4, 4);
    let s = feed(initialState(r), [answered(90), answered(110), answered(100), answered(100)], r);
    expect(s).toMatchObject({ limit: 4, baselineMs: 100, samples: 0 });
    expect(isSlow(290, s, r)).toBe(false);
    expect(isSlow(301, s, r)).toBe(true);
    // One slow answer is noise: the sample's mean decides, once it is full.
    s = feed(s, [answered(900), answered(100), answered(100)], r);
    expect(s).toMatchObject({ limit: 4, epoch: 0 });
    s = nextState(s, answered(100), r);
    expect(s).toMatchObject({ limit: 4, epoch: 0, baselineMs: 100 });
    s = feed(s, [answered(400), answered(400), answered(400)], r);
    expect(s.epoch).toBe(0);
    s = nextState(s, answered(400), r);
    expect(s).toMatchObject({ limit: 2, epoch: 1, baselineMs: 100, samples: 0 });
  });

  it("never calls a sample under the floor slow, however fast the baseline", () => {
    const r = rule(2, 2);
    const s = feed(initialState(r), [answered(1), answered(1)], r);
    const floor = DEFAULT_RULE.latencyFloorMs;
    expect(feed(s, [answered(floor), answered(floor)], r)).toMatchObject({ limit: 2, epoch: 0 });
  });

  it("does not decrease again on a slow sample of renewals sent before the last decrease", () => {
    const r = rule(2, 8);
    let s = feed(initialState(r), [answered(100), answered(100)], r);
    expect(s.limit).toBe(3);
    s = nextState(s, { kind: "throttled", epoch: 0 }, r);
    expect(s).toMatchObject({ limit: 1, epoch: 1, ceiling: 3 });
    // Its sample is judged slow and dropped; no second decrease (it climbs back, recovering).
    s = nextState(s, answered(5_000, 0), r);
    expect(s).toMatchObject({ limit: 2, epoch: 1, samples: 0 });
  });

  it("stays at 1 at the bottom", () => {
    const r = rule(1, 8);
    expect(nextState(initialState(r), { kind: "throttled", epoch: 0 }, r).limit).toBe(1);
  });

  it("ignores an answer time that is not a time", () => {
    const r = rule(4, 8);
    const s = initialState(r);
    expect(nextState(s, answered(Number.NaN), r)).toEqual(s);
    expect(nextState(s, answered(-1), r)).toEqual(s);
  });
});

describe("nextState: fast recovery below the ceiling", () => {
  it("remembers where it was told no, climbs back one per answer, waits at the level below, then probes", () => {
    const r = rule(16, 32);
    let s = nextState(initialState(r), { kind: "throttled", epoch: 0 }, r);
    expect(s).toMatchObject({ limit: 8, ceiling: 16, epoch: 1 });
    // Recovering: every healthy answer adds one, up to ceiling - 1.
    expect(windowOf(s, r)).toBe(1);
    s = feed(
      s,
      Array.from({ length: 7 }, () => answered(10, 1)),
      r,
    );
    expect(s.limit).toBe(15);
    // Just below the ceiling: `plateau` windows of 15 answers before trying 16 again.
    expect(windowOf(s, r)).toBe(15 * DEFAULT_RULE.plateau);
    s = feed(
      s,
      Array.from({ length: 15 * DEFAULT_RULE.plateau - 1 }, () => answered(10, 1)),
      r,
    );
    expect(s.limit).toBe(15);
    s = nextState(s, answered(10, 1), r);
    expect(s.limit).toBe(16);
    // At or past the ceiling: additive again, one per window of `limit` answers.
    expect(windowOf(s, r)).toBe(16);
    s = feed(
      s,
      Array.from({ length: 16 }, () => answered(10, 1)),
      r,
    );
    expect(s.limit).toBe(17);
  });

  it("takes the ceiling from the last decrease only", () => {
    const r = rule(16, 32);
    let s = nextState(initialState(r), { kind: "throttled", epoch: 0 }, r);
    s = nextState(s, { kind: "timeout", epoch: 1 }, r);
    expect(s).toMatchObject({ limit: 4, ceiling: 8, epoch: 2 });
  });
});

describe("shared changes (storage)", () => {
  const r = rule(8, 16);
  const at = (limit: number, epoch: number): AimdState => ({ limit, epoch, healthy: 0 });

  it("names what changed: a shrink by its epoch, a grow by its epoch, nothing otherwise", () => {
    expect(changeOf(at(8, 0), at(4, 1))).toEqual({ kind: "shrink", from: 0 });
    expect(changeOf(at(8, 2), at(9, 2))).toEqual({ kind: "grow", from: 2 });
    expect(changeOf(at(8, 2), { ...at(8, 2), healthy: 3 })).toBeUndefined();
  });

  it("applies a shrink once: another process's shrink of the same epoch covers it", () => {
    const once = applyChange(at(8, 3), { kind: "shrink", from: 3 }, r);
    expect(once).toMatchObject({ limit: 4, epoch: 4 });
    expect(applyChange(once, { kind: "shrink", from: 3 }, r)).toEqual(once);
  });

  it("applies a grow only in its own epoch: a decrease since wins", () => {
    expect(applyChange(at(8, 3), { kind: "grow", from: 3 }, r)).toMatchObject({ limit: 9 });
    expect(applyChange(at(4, 4), { kind: "grow", from: 3 }, r)).toMatchObject({ limit: 4 });
  });

  it("adopts the shared limit and epoch, keeping its window in the same epoch", () => {
    const local = { ...at(8, 2), healthy: 5, baselineMs: 7 };
    expect(adopt(local, at(9, 2), r)).toEqual({ ...local, limit: 9 });
    expect(adopt(local, at(3, 5), r)).toEqual({
      ...local,
      limit: 3,
      epoch: 5,
      healthy: 0,
      samples: 0,
      sampleMs: 0,
    });
    expect(adopt(local, at(99, 2), r).limit).toBe(16);
  });
});

const signalArb = fc.oneof(
  fc.record({
    kind: fc.constant("answered" as const),
    latencyMs: fc.oneof(fc.double({ min: -10, max: 1e6, noNaN: false }), fc.nat(2_000)),
    epoch: fc.nat(20),
  }),
  fc.record({ kind: fc.constant("throttled" as const), epoch: fc.nat(20) }),
  fc.record({ kind: fc.constant("timeout" as const), epoch: fc.nat(20) }),
);
const ruleArb = fc
  .record({ start: fc.integer({ min: -5, max: 300 }), cap: fc.integer({ min: 1, max: 256 }) })
  .map(({ start, cap }) => rule(start, cap));

describe("properties", () => {
  it("keeps the limit a whole number within [1, cap]; a 429 or a timeout never raises it", () => {
    fc.assert(
      fc.property(ruleArb, fc.array(signalArb, { maxLength: 200 }), (r, signals) => {
        let s = initialState(r);
        for (const signal of signals) {
          const next = nextState(s, signal, r);
          expect(Number.isInteger(next.limit)).toBe(true);
          expect(next.limit).toBeGreaterThanOrEqual(1);
          expect(next.limit).toBeLessThanOrEqual(r.cap);
          if (signal.kind !== "answered") expect(next.limit).toBeLessThanOrEqual(s.limit);
          // One step moves it by at most +1, or down by at most half (rounded up).
          expect(next.limit).toBeLessThanOrEqual(s.limit + 1);
          expect(next.limit).toBeGreaterThanOrEqual(Math.floor(s.limit / 2) || 1);
          s = next;
        }
      }),
      { numRuns: propertyRuns(1_000) },
    );
  });

  it("keeps the stored state within [1, cap] whatever changes reach it in whatever order", () => {
    const changeArb = fc.record({
      kind: fc.constantFrom("grow" as const, "shrink" as const),
      from: fc.nat(20),
    });
    fc.assert(
      fc.property(ruleArb, fc.array(changeArb, { maxLength: 100 }), (r, changes) => {
        let s = initialState(r);
        for (const change of changes) {
          const next = applyChange(s, change, r);
          expect(next.limit).toBeGreaterThanOrEqual(1);
          expect(next.limit).toBeLessThanOrEqual(r.cap);
          if (change.kind === "shrink") expect(next.limit).toBeLessThanOrEqual(s.limit);
          expect(next.epoch).toBeGreaterThanOrEqual(s.epoch);
          s = next;
        }
      }),
      { numRuns: propertyRuns(1_000) },
    );
  });
});
