import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  chosenTime,
  DEFAULT_ASK_INTERVAL_MS,
  DEFAULT_RETRY_INTERVAL_MS,
  decideAri,
  MAX_ASK_INTERVAL_MS,
  MIN_ASK_INTERVAL_MS,
  nextAskAt,
  stableFraction,
} from "../../../../shared/core/ari/window.js";
import { HOUR_MS } from "../../../../shared/lib/time.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/** The renewal decision from the CA's window (RFC 9773 4.2) and when to ask again (4.3). */

const at = (iso: string) => new Date(iso);
const window = { start: at("2026-12-01T00:00:00Z"), end: at("2026-12-03T00:00:00Z") };
const middle = at("2026-12-02T00:00:00Z");

describe("decideAri", () => {
  it.each([
    // now, fraction, nextCheckAt, renew, reason
    ["2026-11-30T23:59:59.999Z", 0, undefined, false, "not-yet"],
    ["2026-12-01T00:00:00.000Z", 0, undefined, true, "chosen-time-reached"],
    ["2026-12-01T23:59:59.999Z", 0.5, undefined, false, "not-yet"],
    ["2026-12-02T00:00:00.000Z", 0.5, undefined, true, "chosen-time-reached"],
    ["2026-12-01T12:00:00.000Z", 0.5, "2026-12-02T00:00:00.000Z", false, "not-yet"],
    ["2026-12-01T12:00:00.000Z", 0.5, "2026-12-02T00:00:00.001Z", true, "before-next-check"],
    ["2026-12-02T23:59:59.999Z", 0.9999999999, undefined, true, "chosen-time-reached"],
    ["2026-12-03T00:00:00.000Z", 0.9999999999, undefined, true, "window-ended"],
    ["2027-06-01T00:00:00.000Z", 0, undefined, true, "window-ended"],
  ] as const)(
    "now %s, fraction %s, next check %s: renew %s (%s)",
    (now, fraction, next, renew, reason) => {
      const decision = decideAri(window, {
        now: at(now),
        fraction,
        nextCheckAt: next === undefined ? undefined : at(next),
      });
      expect(decision).toMatchObject({ renew, reason });
    },
  );

  it("a window in the past ('renew now') renews whatever the fraction", () => {
    const past = { start: at("2026-01-01T00:00:00Z"), end: at("2026-01-01T00:00:01Z") };
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (fraction) => {
        expect(decideAri(past, { now: middle, fraction }).renew).toBe(true);
      }),
      { numRuns: propertyRuns(100) },
    );
  });

  it("the chosen time is always inside [start, end), and never renews before the window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 2 ** 36 }),
        fc.double({ min: -1, max: 2, noNaN: true }),
        fc.integer({ min: -(2 ** 36), max: 2 ** 37 }),
        (start, length, fraction, offset) => {
          const w = { start: new Date(start), end: new Date(start + length) };
          const chosen = chosenTime(w, fraction).getTime();
          expect(chosen).toBeGreaterThanOrEqual(start);
          expect(chosen).toBeLessThan(start + length);
          const now = new Date(start + offset);
          const decision = decideAri(w, { now, fraction });
          if (offset < 0) expect(decision.renew).toBe(false);
          expect(decision.renew).toBe(now.getTime() >= chosen);
        },
      ),
      { numRuns: propertyRuns(1000) },
    );
  });
});

describe("stableFraction", () => {
  it("is the same for the same CertID and window, and moves with either", () => {
    const a = stableFraction("aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE", window);
    expect(stableFraction("aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE", window)).toBe(a);
    expect(stableFraction("aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyI", window)).not.toBe(a);
    const moved = { start: window.start, end: at("2026-12-03T00:00:01Z") };
    expect(stableFraction("aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE", moved)).not.toBe(a);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(1);
  });

  it("spreads 10,000 certificates evenly over the window (each tenth holds 8-12%)", () => {
    const tenths = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const f = stableFraction(`cert-${i}`, window);
      tenths[Math.floor(f * 10)] = (tenths[Math.floor(f * 10)] ?? 0) + 1;
    }
    for (const count of tenths) {
      expect(count).toBeGreaterThan(800);
      expect(count).toBeLessThan(1200);
    }
  });
});

describe("nextAskAt: Retry-After, clamped to [1 min, 1 day]", () => {
  const now = at("2026-11-26T12:00:00Z");
  const wait = (header: string | undefined, after: "answer" | "failure" = "answer") =>
    nextAskAt(now, header, after).getTime() - now.getTime();

  it.each([
    ["21600", 21_600_000],
    ["60", MIN_ASK_INTERVAL_MS],
    ["59", MIN_ASK_INTERVAL_MS],
    ["0", MIN_ASK_INTERVAL_MS],
    ["61", 61_000],
    ["86400", MAX_ASK_INTERVAL_MS],
    ["86401", MAX_ASK_INTERVAL_MS],
    ["86399", 86_399_000],
    ["Thu, 26 Nov 2026 14:00:00 GMT", 2 * HOUR_MS],
    ["Thu, 26 Nov 2026 11:00:00 GMT", MIN_ASK_INTERVAL_MS],
    ["Sat, 28 Nov 2026 12:00:00 GMT", MAX_ASK_INTERVAL_MS],
  ])("Retry-After %s waits %d ms", (header, ms) => {
    expect(wait(header)).toBe(ms);
  });

  it.each([undefined, "", "-5", "1.5", "soon", "2026-11-26T14:00:00Z"])(
    "an absent or unreadable Retry-After (%s): 6 h after an answer, 1 h after a failure",
    (header) => {
      expect(wait(header, "answer")).toBe(DEFAULT_ASK_INTERVAL_MS);
      expect(wait(header, "failure")).toBe(DEFAULT_RETRY_INTERVAL_MS);
    },
  );
});
