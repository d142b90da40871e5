import { afterEach, describe, expect, it } from "vitest";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { type AriWorld, startAriWorld } from "../../../support/ariWorld.js";
import { startAzurite } from "../../../support/azurite.js";

/**
 * The CA's word acted on, end to end over real sockets: the hosting endpoint serves the leaf,
 * sim/acme answers its CertID, and the simulator's service receives (or not) the v3 renewal.
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

const started = (w: AriWorld) => ({
  start: new Date(w.clock.now().getTime() - HOUR_MS),
  end: new Date(w.clock.now().getTime() + DAY_MS),
  explanationUrl: "https://ca.example/incident/42",
});

const renewals = (w: AriWorld) => w.sim.requestsFor("renew");

describe("renewForAri after a verification run", () => {
  it("renews a certificate whose window has started, once: trigger ari, the window and explanation in the history", async () => {
    const w = await open();
    w.setWindow(started(w));
    await w.verify();
    expect(renewals(w)).toHaveLength(1);
    expect(renewals(w)[0]?.body).toContain('"www"');
    const { items } = await w.history.events({ certificateName: "www", since: new Date(0) });
    const scheduled = items.find((e) => e.event === "renewal-scheduled");
    expect(scheduled).toMatchObject({ trigger: "ari" });
    expect(scheduled?.detail).toContain(
      `the CA's renewal window ${started(w).start.toISOString()}..${started(w).end.toISOString()} has started (ARI), explained at https://ca.example/incident/42`,
    );
    expect(items.find((e) => e.event === "manual-request")).toMatchObject({
      trigger: "ari",
      by: "ari",
    });
    expect(w.lines.some((l) => l.message.startsWith("certsched ARI: renewing www:"))).toBe(true);

    // The next run (the CA's answer is asked again later): the ledger shows it asked for.
    w.clock.advance(7 * HOUR_MS);
    await w.verify();
    expect(w.ariAsked()).toBe(2);
    expect(renewals(w)).toHaveLength(1);
  });

  it("renews many at once, CERTSCHED_RENEWAL_CONCURRENCY at a time (a CA revoking en masse opens thousands of windows), each once", async () => {
    const names = ["a", "b", "c", "d", "e", "f", "g"];
    // Every service answer takes 300 ms: renewals asked one at a time never overlap.
    const w = await open({
      names,
      env: { CERTSCHED_RENEWAL_CONCURRENCY: "3" },
      sim: { latencyMs: 300, rateLimit: { capacity: 64, operations: ["renew"] } },
    });
    w.setWindow(started(w));
    await w.verify();
    const asked = renewals(w).map((r) => /"certificateName":"(\w)"/.exec(r.body)?.[1]);
    expect(asked.sort()).toEqual(names);
    const stats = w.sim.rateLimitStats();
    expect(stats?.peakInFlight).toBeGreaterThanOrEqual(2);
    expect(stats?.peakInFlight).toBeLessThanOrEqual(3);
    expect(stats?.throttled).toBe(0);
  });

  it("sends no renewal while the window has not started (one millisecond before its start)", async () => {
    const w = await open();
    const now = w.clock.now().getTime();
    w.setWindow({ start: new Date(now + 1), end: new Date(now + DAY_MS) });
    const v = await w.verify();
    expect(w.ariAsked()).toBe(1);
    expect(renewals(w)).toHaveLength(0);
    expect(v.failed).toBe(false);
    expect((await w.inventory.get("www"))?.ari).toMatchObject({ start: new Date(now + 1) });
  });

  it("renews at exactly the window's start", async () => {
    const w = await open();
    const now = w.clock.now();
    w.setWindow({ start: now, end: new Date(now.getTime() + DAY_MS) });
    await w.verify();
    expect(renewals(w)).toHaveLength(1);
  });

  it("leaves the renewal to the timer when asked not to (renewForAri: false)", async () => {
    const w = await open();
    w.setWindow(started(w));
    await w.verify({ renewForAri: false });
    expect(w.ariAsked()).toBe(1);
    expect(renewals(w)).toHaveLength(0);
  });

  it("does not renew past CERTSCHED_SERVICE_QUOTA (the shared budget in storage), and says so; within it the renewal counts", async () => {
    const azurite = await startAzurite();
    try {
      const history = tableHistory({ connectionString: azurite.connectionString });
      const at = new Date();
      await history.recordRequests(
        [1, 2, 3, 4, 5].map(() => ({ at, operation: "list", trigger: "timer" as const })),
      );
      const env = (quota: string) => ({
        AzureWebJobsStorage: azurite.connectionString,
        CERTSCHED_SERVICE_QUOTA: quota,
      });
      const w = await open({ history, env: env("5/7d") });
      w.setWindow(started(w));
      await w.verify();
      expect(renewals(w)).toHaveLength(0);
      const said = w.lines.find((l) => l.message.includes("certsched ARI: www not renewed"));
      expect(said?.level).toBe("warn");
      expect(said?.message).toContain("CERTSCHED_SERVICE_QUOTA 5/7d");
      await w.close();
      world = undefined;

      const more = await open({ history, env: env("9/7d") });
      more.setWindow(started(more));
      const before = await history.requestsSince(new Date(0));
      await more.verify();
      expect(renewals(more)).toHaveLength(1);
      // Get Certificate and the renewal were counted in the shared budget; the CA's were not.
      expect((await history.requestsSince(new Date(0))) - before).toBe(2);
    } finally {
      await world?.close();
      world = undefined;
      await azurite.stop();
    }
  }, 60_000);

  it("does not renew a certificate its last preflight blocks", async () => {
    const w = await open();
    await w.inventory.recordPreflight("www", {
      at: w.clock.now(),
      status: "will-fail",
      rootDomain: "www.ari.test",
      checks: [{ check: "caa", status: "fail", reason: "caa-forbids", detail: '0 issue "x.ca"' }],
    });
    w.setWindow(started(w));
    await w.verify();
    expect(renewals(w)).toHaveLength(0);
    expect(
      w.lines.some((l) =>
        l.message.includes("its last preflight blocks the renewal (caa-forbids)"),
      ),
    ).toBe(true);
  });

  it("does not ask again when the ledger shows the renewal accepted since the window started", async () => {
    const w = await open();
    w.setWindow(started(w));
    await w.verify();
    expect(renewals(w)).toHaveLength(1);
    // Another process asked the CA: this one's row is due to ask again, the ledger says done.
    const row = await w.inventory.get("www");
    expect(row?.id).toBeDefined();
    w.clock.advance(HOUR_MS);
    await w.inventory.recordAri?.("www", {
      ...(row?.ari as NonNullable<typeof row>["ari"] & object),
      nextAskAt: w.clock.now(),
    });
    await w.verify();
    expect(w.ariAsked()).toBe(2);
    expect(renewals(w)).toHaveLength(1);
  });
});
