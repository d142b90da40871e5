import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { DAY_MS } from "../../shared/lib/time.js";
import { meanInFlight, type Simulator, startSimulator } from "../../sim/index.js";
import { RateLimit } from "../../sim/rateLimit.js";
import { publicUrl, tokens } from "../support/simulator.js";

let sim: Simulator | undefined;
afterEach(() => sim?.close());

async function renewAll(s: Simulator, count: number) {
  const tok = await tokens(s);
  const body = (i: number) =>
    JSON.stringify({
      accessToken: tok.management,
      accessTokenKeyVault: tok.vault,
      certificate: { certificateName: `c${i}`, id: i + 1 },
    });
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await request(publicUrl(s, "renew"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: body(i),
      });
      return {
        status: res.statusCode,
        retryAfter: res.headers["retry-after"],
        text: await res.body.text(),
      };
    }),
  );
}

describe("simulator rate limit", () => {
  it("serves `capacity` requests in flight and answers the rest 429 with Retry-After, doing nothing", async () => {
    sim = await startSimulator({
      latencyMs: 100,
      rateLimit: { capacity: 3, retryAfterSeconds: 2 },
      certificates: Array.from({ length: 8 }, (_, i) => ({
        certificateName: `c${i}`,
        id: i + 1,
        expiryDate: new Date(Date.now() + DAY_MS),
      })),
    });
    const answers = await renewAll(sim, 8);
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(served).toHaveLength(3);
    expect(refused).toHaveLength(5);
    for (const a of refused) {
      expect(a.retryAfter).toBe("2");
      expect(a.text).toBe("Too many requests in flight; retry later");
    }
    // A refused renewal ordered nothing.
    const renewed = sim.certificates().filter((c) => sim?.renewCallsFor(c.certificateName) === 1);
    expect(renewed).toHaveLength(3);
    expect(sim.rateLimitStats()).toMatchObject({
      capacity: 3,
      admitted: 3,
      throttled: 5,
      inFlight: 0,
      peakInFlight: 3,
    });
  });

  it("never limits the token endpoint, and serves again once requests finish", async () => {
    sim = await startSimulator({ rateLimit: { capacity: 1 } });
    // Tokens are fetched (several at once) whatever the capacity.
    await Promise.all([tokens(sim), tokens(sim), tokens(sim)]);
    const first = await renewAll(sim, 1);
    const second = await renewAll(sim, 1);
    expect([first[0]?.status, second[0]?.status]).not.toContain(429);
    expect(sim.rateLimitStats()?.throttled).toBe(0);
  });

  it("is undefined without the option", async () => {
    sim = await startSimulator();
    expect(sim.rateLimitStats()).toBeUndefined();
  });

  it("integrates the requests in flight over time: the mean between two readings", async () => {
    const limit = new RateLimit({ capacity: 4 });
    const from = limit.stats();
    expect(limit.admit("publicRenew")).toBe(true);
    expect(limit.admit("publicRenew")).toBe(true);
    expect(limit.admit("token")).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    limit.release();
    limit.release();
    const to = limit.stats();
    expect(meanInFlight(from, to)).toBeGreaterThan(1.5);
    expect(meanInFlight(from, to)).toBeLessThanOrEqual(2);
    expect(meanInFlight(to, to)).toBe(0);
  });

  it("refuses options that make no sense, naming them", () => {
    expect(() => new RateLimit({ capacity: 0 })).toThrow(
      /rateLimit.capacity must be a whole number from 1, got 0/,
    );
    expect(() => new RateLimit({ capacity: 2, retryAfterSeconds: -1 })).toThrow(
      /rateLimit.retryAfterSeconds/,
    );
    expect(() => new RateLimit({ capacity: 2, operations: ["token"] })).toThrow(/token endpoint/);
  });
});
