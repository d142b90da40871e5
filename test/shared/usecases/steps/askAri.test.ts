import { afterEach, describe, expect, it } from "vitest";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../../../shared/lib/time.js";
import { type AriWorld, startAriWorld } from "../../../support/ariWorld.js";

/**
 * Asking the CA during a verification run, over real sockets (hosting endpoint, sim/acme), with
 * one injected clock: Retry-After kept with the row, a CA down never changing a result, and its
 * failure reported at most once a day per directory.
 */

let world: AriWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A world closed after the test (or by it). */
async function open(options?: Parameters<typeof startAriWorld>[0]): Promise<AriWorld> {
  world = await startAriWorld(options);
  return world;
}

const later = (w: AriWorld) => {
  const now = w.clock.now().getTime();
  return {
    start: new Date(now + 20 * DAY_MS),
    end: new Date(now + 22 * DAY_MS),
    explanationUrl: "https://ca.example/why",
  };
};

const warnings = (w: AriWorld) =>
  w.lines.filter((l) => l.level === "warn" && l.message.startsWith("certsched ARI:"));

describe("askAri in a verification run", () => {
  it("keeps the CA's window with the row, and asks no more before Retry-After (to the millisecond)", async () => {
    const w = await open();
    w.acme.setRetryAfter("600");
    w.setWindow(later(w));
    const t0 = w.clock.now().getTime();
    await w.verify();
    expect(w.ariAsked()).toBe(1);
    const row = await w.inventory.get("www");
    expect(row?.ari).toMatchObject({
      directoryUrl: w.acme.directoryUrl,
      start: later(w).start,
      end: later(w).end,
      explanationUrl: "https://ca.example/why",
      askedAt: new Date(t0),
      nextAskAt: new Date(t0 + 10 * MINUTE_MS),
    });
    expect(row?.ari?.certId).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

    w.clock.advance(10 * MINUTE_MS - 1);
    await w.verify();
    expect(w.ariAsked()).toBe(1);
    w.clock.advance(1);
    await w.verify();
    expect(w.ariAsked()).toBe(2);
  });

  it("a CA that does not answer changes no result, renews nothing, and is reported once a day", async () => {
    const w = await open({ names: ["www", "shop"] });
    const window = later(w);
    w.setWindow(window);
    const calm = await w.verify();
    expect(warnings(w)).toEqual([]);
    // After the answer's Retry-After (6 h), the CA hangs: the run waits CERTSCHED_ARI_TIMEOUT once.
    w.clock.advance(6 * HOUR_MS);
    w.acme.setFault("renewalInfo", "hang");
    const down = await w.verify();
    expect(down.results.map((r) => [r.domain, r.status])).toEqual(
      calm.results.map((r) => [r.domain, r.status]),
    );
    expect(down.failed).toBe(false);
    expect(w.sim.requestsFor("renew")).toHaveLength(0);
    expect(warnings(w)).toHaveLength(1);
    expect(warnings(w)[0]?.message).toContain(
      `certsched ARI: ${w.acme.directoryUrl} unreachable (`,
    );
    const row = await w.inventory.get("www");
    expect(row?.ari?.problem).toBeDefined();
    expect(row?.ari?.reportedAt).toEqual(w.clock.now());
    // The window the CA gave before still stands.
    expect(row?.ari).toMatchObject({ start: window.start, end: window.end });

    // Every hour after: asked again (its retry time), still failing, not reported again that day.
    w.acme.setFault("renewalInfo", 500);
    const asked = w.ariAsked();
    for (let hour = 1; hour < 24; hour++) {
      w.clock.advance(HOUR_MS);
      await w.verify();
    }
    expect(w.ariAsked()).toBeGreaterThan(asked);
    expect(warnings(w)).toHaveLength(1);
    w.clock.advance(HOUR_MS);
    await w.verify();
    expect(warnings(w)).toHaveLength(2);
  }, 60_000);

  it("asks nothing with CERTSCHED_ARI_DIRECTORIES=none, and nothing of a certificate from another issuer", async () => {
    const off = await open({ env: { CERTSCHED_ARI_DIRECTORIES: "none" } });
    off.setWindow(later(off));
    await off.verify();
    expect(off.acme.requests).toEqual([]);
    expect((await off.inventory.get("www"))?.ari).toBeUndefined();
    await off.close();
    const other = await open({
      env: { CERTSCHED_ARI_DIRECTORIES: "Let's Encrypt=https://127.0.0.1:9/directory" },
    });
    await other.verify();
    expect(other.acme.requests).toEqual([]);
  });

  it("a bad ARI setting turns ARI off with a warning; verification goes on", async () => {
    const w = await open({
      env: { CERTSCHED_ARI_DIRECTORIES: "certsched simulator=http://plain.example/dir" },
    });
    const v = await w.verify();
    expect(v.results).toHaveLength(1);
    expect(w.acme.requests).toEqual([]);
    expect(
      w.lines.some((l) => l.level === "warn" && l.message.includes("CERTSCHED_ARI_DIRECTORIES")),
    ).toBe(true);
  });
});
