import { afterEach, describe, expect, it } from "vitest";
import type { PartView } from "../../shared/core/runs/parts.js";
import type { RunView } from "../../shared/edge/views/runView.js";
import { hostQueueSettings } from "../support/hostLoop.js";
import { type FanOutWorld, inDays, runOf, startFanOutWorld } from "../support/runs.js";

/*
 * Fan-out over accounts (docs/runs.md): a run over declared accounts is a parent with one part per
 * account, each swept by its own message on the queue with its own account's runtime; the parent's
 * state is derived from its parts. Over Azurite (queues and tables) and one simulator per account,
 * with the handlers driven by the test host loop (host.json's batch).
 */

let world: FanOutWorld | undefined;

afterEach(async () => {
  if (!world) return;
  expect(await world.leaks()).toEqual([]);
  await world.close();
  world = undefined;
});

/** Every account has the same certificate names: one due, one not. */
const sameNames = () => [
  { certificateName: "www-contoso-com", expiryDate: inDays(5) },
  { certificateName: "blog-contoso-com", expiryDate: inDays(45) },
];

const parts = (view: RunView): readonly (PartView & { location: string })[] => view.parts ?? [];

/** Each simulator saw only its own account's key and tokens, and renewed its due one once. */
function expectIsolatedAndRenewedOnce(w: FanOutWorld, names = w.names) {
  for (const name of names) {
    const sim = w.accounts.sim(name);
    expect(sim.renewCallsFor("www-contoso-com"), name).toBe(1);
    expect(sim.renewCallsFor("blog-contoso-com"), name).toBe(0);
  }
  const all = w.accounts.accounts;
  if (all.length > 10) return; // the wire check is quadratic; two accounts prove it
  for (const { name, sim } of all) {
    const foreign = all
      .filter((a) => a.name !== name)
      .flatMap((a) => [a.sim.options.apiKey, a.sim.options.clientSecret, ...a.sim.issuedTokens()]);
    for (const request of sim.requests) {
      const wire = JSON.stringify(request);
      for (const value of foreign) expect(wire).not.toContain(value);
    }
  }
}

describe("two accounts", () => {
  it("POST queues a parent with a part per account, one message each; GET shows every part until all are done", async () => {
    world = await startFanOutWorld(2, sameNames);
    const w = world;

    const accepted = await w.post();
    expect(accepted.status).toBe(202);
    const run = runOf(accepted);
    expect(run.state).toBe("queued");
    expect(parts(run).map((p) => [p.account, p.state])).toEqual(
      w.names.map((name) => [name, "queued"]),
    );
    const peeked = await w.queue.peekMessages({ numberOfMessages: 32 });
    expect(
      peeked.peekedMessageItems
        .map((m) => JSON.parse(m.messageText))
        .sort((a, b) => a.account.localeCompare(b.account)),
    ).toEqual(parts(run).map((p) => ({ runId: p.runId, dryRun: false, account: p.account })));

    // One part delivered: the run is running, one part done, the other still queued.
    const loop = w.hostLoop("runs");
    const { deliverOne } = await import("../support/hostLoop.js");
    expect((await deliverOne(loop))?.outcome).toBe("done");
    const midway = runOf(await w.get(run.runId));
    expect(midway.state).toBe("running");
    expect(
      parts(midway)
        .map((p) => p.state)
        .sort(),
    ).toEqual(["queued", "succeeded"]);

    await w.drainRuns();
    const done = await w.get(run.runId);
    expect(done.status).toBe(200);
    const view = runOf(done);
    expect(view).toMatchObject({ state: "succeeded", failed: false, problems: [] });
    expect(view.counts).toMatchObject({ due: 2, "renewal-scheduled": 2 });
    for (const part of parts(view)) {
      expect(part).toMatchObject({ state: "succeeded", status: "succeeded", attempts: 1 });
      expect(part.counts).toMatchObject({ due: 1, "renewal-scheduled": 1 });
      // A part is a run of its own, at its own location.
      const own = runOf(await w.get(part.runId));
      expect(own).toMatchObject({
        runId: part.runId,
        account: part.account,
        parentRunId: run.runId,
        state: "succeeded",
      });
      expect(own.results?.map((r) => r.certificateName)).toEqual(["www-contoso-com"]);
    }
    // The same certificate name in both accounts: renewed once in each.
    expectIsolatedAndRenewedOnce(w);
    // Read finished, the parent's outcome is stored too: the daily pass has nothing left to move.
    expect((await w.store.get(run.runId))?.state).toBe("succeeded");
    expect(await w.store.listUnfinished(100)).toEqual([]);
  });

  it("an Idempotency-Key repeats the parent with its parts, queueing nothing more", async () => {
    world = await startFanOutWorld(2, sameNames);
    const w = world;
    const headers = { "idempotency-key": "fan-out-twice" };
    const first = runOf(await w.post({ headers }));
    const again = await w.post({ headers });
    expect(again.status).toBe(202);
    expect(runOf(again).runId).toBe(first.runId);
    expect(parts(runOf(again)).map((p) => p.runId)).toEqual(parts(first).map((p) => p.runId));
    const peeked = await w.queue.peekMessages({ numberOfMessages: 32 });
    expect(peeked.peekedMessageItems).toHaveLength(2);
    await w.drainRuns();
    const done = await w.post({ headers });
    expect(done.status).toBe(200);
    expect(runOf(done)).toMatchObject({ runId: first.runId, state: "succeeded" });
    expectIsolatedAndRenewedOnce(w);
  });

  it("?wait answers 200 with the finished parent once every part is done", async () => {
    world = await startFanOutWorld(2, sameNames);
    const w = world;
    const { listen } = await import("../support/hostLoop.js");
    const host = listen(w.hostLoop("runs"));
    try {
      const reply = await w.post({ query: { wait: "30" } });
      expect(reply.status).toBe(200);
      expect(runOf(reply).state).toBe("succeeded");
      expect(parts(runOf(reply)).every((p) => p.state === "succeeded")).toBe(true);
    } finally {
      await host.stop();
    }
    expectIsolatedAndRenewedOnce(w);
  });

  it("the timer queues the same parent (requested by the timer) and returns without sweeping", async () => {
    world = await startFanOutWorld(2, sameNames);
    const w = world;
    await w.timer();
    for (const { sim } of w.accounts.accounts) expect(sim.requests).toHaveLength(0);
    const line = w.logs.find((l) => l.message.startsWith("certsched timer: run "));
    const runId = /run ([0-9a-f-]{36})/.exec(line?.message ?? "")?.[1] ?? "";
    expect(runOf(await w.get(runId))).toMatchObject({ state: "queued", requestedBy: "timer" });

    await w.drainRuns();
    const view = runOf(await w.get(runId));
    expect(view.state).toBe("succeeded");
    expect(parts(view)).toHaveLength(2);
    expectIsolatedAndRenewedOnce(w);
  });
});

describe("one account's trouble leaves the others alone", () => {
  it("refused, down and over quota: each part says so, alerts name the account, the others renew", async () => {
    world = await startFanOutWorld(4, sameNames);
    const w = world;
    const [refused, down, overQuota, healthy] = w.names as [string, string, string, string];
    await w.configure({ CERTSCHED_HTTP_TIMEOUT: "2s" }, (declarations) =>
      declarations.map((d) =>
        d.name === refused
          ? { ...d, clientSecret: "not-the-secret-of-this-account" }
          : d.name === overQuota
            ? { ...d, quota: "1/7d" }
            : d,
      ),
    );
    w.accounts.sim(down).inject("list", { status: 503, times: Number.POSITIVE_INFINITY });

    const run = runOf(await w.post());
    await w.drainRuns();
    const view = runOf(await w.get(run.runId));

    expect(view.state).toBe("failed");
    const byAccount = Object.fromEntries(parts(view).map((p) => [p.account, p]));
    expect(byAccount[refused]).toMatchObject({ state: "failed", status: "credentials-refused" });
    expect(byAccount[down]).toMatchObject({ state: "failed", status: "failed" });
    expect(byAccount[overQuota]).toMatchObject({ state: "failed", status: "over-quota" });
    expect(byAccount[healthy]).toMatchObject({ state: "succeeded", status: "succeeded" });
    expect(byAccount[healthy]?.counts).toMatchObject({ "renewal-scheduled": 1 });
    // Every part had one delivery: a part that failed for its account is an outcome, not a retry.
    for (const part of parts(view)) expect(part.attempts).toBe(1);
    expect(w.accounts.sim(healthy).renewCallsFor("www-contoso-com")).toBe(1);
    expect(w.accounts.sim(overQuota).renewCallsFor("www-contoso-com")).toBe(0);
    expect(view.problems?.some((p) => p.startsWith(`account ${down}: `))).toBe(true);

    const alerts = w.logs
      .filter((l) => l.level === "error" && l.message.startsWith("certsched account alert: "))
      .map((l) => l.message);
    expect(alerts).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(
            `^certsched account alert: account ${refused}: credentials-refused in run ${run.runId}: `,
          ),
        ),
        expect.stringMatching(
          new RegExp(
            `^certsched account alert: account ${overQuota}: over-quota in run ${run.runId}: `,
          ),
        ),
      ]),
    );
    expect(alerts).toHaveLength(2);
  });

  it("a part whose every delivery fails is poisoned after maxDequeueCount; the others succeed", async () => {
    world = await startFanOutWorld(3, sameNames);
    const w = world;
    const [gone, ...others] = w.names as [string, ...string[]];
    const run = runOf(await w.post());
    // The account is no longer declared by the time its part is delivered: every delivery fails.
    await w.configure({}, (declarations) => declarations.filter((d) => d.name !== gone));

    const deliveries = await w.drainRuns();
    const { maxDequeueCount } = hostQueueSettings();
    expect(deliveries.filter((d) => d.outcome === "retry")).toHaveLength(maxDequeueCount - 1);
    expect(deliveries.filter((d) => d.outcome === "poisoned")).toHaveLength(1);
    await w.drainPoison();

    const view = runOf(await w.get(run.runId));
    expect(view.state).toBe("failed");
    const byAccount = Object.fromEntries(parts(view).map((p) => [p.account, p]));
    expect(byAccount[gone]).toMatchObject({
      state: "failed",
      status: "poisoned",
      attempts: maxDequeueCount,
    });
    expect(byAccount[gone]?.problem).toContain(`'${gone}' is unknown`);
    for (const name of others) {
      expect(byAccount[name]).toMatchObject({ state: "succeeded", attempts: 1 });
    }
    expect(
      w.logs.some(
        (l) =>
          l.level === "error" &&
          l.message.startsWith(
            `certsched run poisoned: run ${byAccount[gone]?.runId} (account ${gone}): `,
          ),
      ),
    ).toBe(true);
    expectIsolatedAndRenewedOnce(w, others);
    expect(w.accounts.sim(gone).requests).toHaveLength(0);
  });
});

describe("many accounts", () => {
  it("50 accounts via POST: every part done, each account renewed once", async () => {
    world = await startFanOutWorld(50, sameNames);
    const w = world;
    const run = runOf(await w.post());
    expect(parts(run)).toHaveLength(50);
    await w.drainRuns();
    const view = runOf(await w.get(run.runId));
    expect(view.state).toBe("succeeded");
    expect(parts(view).every((p) => p.state === "succeeded")).toBe(true);
    expect(view.counts).toMatchObject({ due: 50, "renewal-scheduled": 50 });
    expectIsolatedAndRenewedOnce(w);
  }, 120_000);

  it("the timer with 300 accounts returns at once and finishes in one run", async () => {
    world = await startFanOutWorld(300, () => [
      { certificateName: "www-contoso-com", expiryDate: inDays(5) },
    ]);
    const w = world;
    const started = performance.now();
    await w.timer();
    const timerMs = performance.now() - started;
    expect(timerMs).toBeLessThan(20_000);
    const line = w.logs.find((l) => l.message.startsWith("certsched timer: run "));
    const runId = /run ([0-9a-f-]{36})/.exec(line?.message ?? "")?.[1] ?? "";

    await w.drainRuns();
    const view = runOf(await w.get(runId));
    expect(view.state).toBe("succeeded");
    expect(parts(view)).toHaveLength(300);
    expect(view.counts).toMatchObject({ due: 300, "renewal-scheduled": 300 });
    for (const name of w.names) {
      expect(w.accounts.sim(name).renewCallsFor("www-contoso-com"), name).toBe(1);
    }
  }, 300_000);
});
