import { describe, expect, it } from "vitest";
import { rateLimitBench, rateLimitedSweep } from "../../bench/rateLimitBench.js";

describe("rateLimitedSweep", () => {
  it("renews everything once against a service answering 429 above its capacity, and measures it", async () => {
    const run = await rateLimitedSweep({
      certificates: 200,
      capacity: 4,
      retryAfterSeconds: 0,
      latencyMs: 30,
      start: 2,
      cap: 16,
      runs: 1,
      progress: () => {},
    });
    expect(run.scheduled).toBe(200);
    expect(run.failed).toBe(0);
    expect(run.doubled).toBe(0);
    expect(run.peakInFlight).toBeLessThanOrEqual(4);
    expect(run.limits.min).toBeGreaterThanOrEqual(1);
    expect(run.limits.max).toBeGreaterThan(4); // it probed past the capacity, and was told no
    expect(run.throttled).toBeGreaterThan(0);
    expect(run.reachedAfterMs).toBeGreaterThan(0);
    expect(run.utilisation).toBeGreaterThan(0);
    expect(run.utilisation).toBeLessThanOrEqual(1.0001);
    expect(run.steadyUtilisation).toBeLessThanOrEqual(1.0001);
  }, 60_000);
});

describe("rateLimitBench", () => {
  it("reports the section and its two gates", async () => {
    const lines: string[] = [];
    const { section, gates } = await rateLimitBench({
      certificates: 60,
      capacity: 3,
      retryAfterSeconds: 0,
      latencyMs: 20,
      start: 2,
      cap: 8,
      runs: 1,
      progress: (line) => lines.push(line),
    });
    expect(section.title).toBe("Rate-limited service: adaptive concurrency");
    expect(section.rows[0]?.goal).toBe(">= 90 %");
    expect(section.rows.find((r) => r.measure.startsWith("Failed"))?.met).toBe(true);
    expect(gates.map((g) => g.name)).toEqual([
      "rate-limited sweep reaches 90 % of the capacity",
      "rate-limited sweep fails no renewal",
    ]);
    expect(gates[1]?.ok).toBe(true);
    expect(lines).toEqual([
      expect.stringMatching(/^rate-limited sweep 1\/1: .*60 scheduled, 0 failed/),
    ]);
  }, 60_000);
});
