import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ATTEMPT_TIMEOUT_MS, MAX_DEQUEUE_COUNT } from "../../../shared/core/runs/run.js";
import { runLocation } from "../../../shared/edge/views/runView.js";
import { CertschedError } from "../../../shared/lib/errors.js";
import { fakeClock } from "../../support/clock.js";
import { hostQueueSettings } from "../../support/hostLoop.js";
import { type RunsWorld, runOf, startRunsWorld } from "../../support/runs.js";

let world: RunsWorld;

beforeEach(async () => {
  world = await startRunsWorld();
});
afterEach(async () => {
  expect(world.app.leaks(await world.storedTexts())).toEqual([]);
  await world.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("POST /api/renewals queues the sweep", () => {
  it("answers 202 + Location with the queued run, and one message on certsched-runs", async () => {
    const reply = await world.post();

    expect(reply.status).toBe(202);
    const run = runOf(reply);
    expect(run.runId).toMatch(UUID);
    expect(reply.headers.location).toBe(`/api/renewals/${run.runId}`);
    expect(run).toMatchObject({
      state: "queued",
      dryRun: false,
      attempts: 0,
      requestedBy: "function-key",
      location: runLocation(run.runId),
    });
    expect(run).not.toHaveProperty("results");
    // Nothing was swept inside the request.
    expect(world.app.sim.requests).toEqual([]);
    const peeked = await world.queue.peekMessages({ numberOfMessages: 32 });
    expect(peeked.peekedMessageItems.map((m) => JSON.parse(m.messageText))).toEqual([
      { runId: run.runId, dryRun: false },
    ]);
  });

  it("polls to completion: queued, then succeeded with counts and results once the trigger ran", async () => {
    const { runId } = runOf(await world.post());
    const queued = await world.get(runId);
    expect(queued.status).toBe(200);
    expect(runOf(queued)).toMatchObject({ runId, state: "queued" });

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => [d.outcome, d.dequeueCount])).toEqual([["done", 1]]);
    const done = await world.get(runId);
    expect(done.status).toBe(200);
    const run = runOf(done);
    expect(run).toMatchObject({
      runId,
      state: "succeeded",
      attempts: 1,
      failed: false,
      ledger: "table",
      problems: [],
      counts: { due: 1, "renewal-scheduled": 1, failed: 0 },
    });
    expect(Date.parse(run.finishedAt ?? "")).toBeGreaterThanOrEqual(
      Date.parse(run.startedAt ?? ""),
    );
    expect(run.results?.map((r) => [r.certificateName, r.outcome])).toEqual([
      ["www-contoso-com", "renewal-scheduled"],
    ]);
    expect(world.app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    expect(world.app.sim.renewCallsFor("blog-contoso-com")).toBe(0);
    // The message is gone: the host deleted it after the handler resolved.
    expect((await world.queue.peekMessages()).peekedMessageItems).toEqual([]);
    // The sweep ran as the queue trigger, under the run's id: its summary line was logged there.
    expect(
      world.app.logs.some(
        (l) =>
          l.functionName === "runQueuedRenewals" &&
          l.message.startsWith("certsched sweep summary "),
      ),
    ).toBe(true);
  });

  it("records a sweep that ran with failures as a failed run, without another delivery", async () => {
    world.app.sim.inject("publicRenew", { status: 400, body: "Renewal refused: quota exceeded" });
    const { runId } = runOf(await world.post());

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => d.outcome)).toEqual(["done"]);
    const run = runOf(await world.get(runId));
    expect(run).toMatchObject({
      state: "failed",
      failed: true,
      problems: ["1 renewal(s) failed: www-contoso-com"],
    });
    expect(run.results?.[0]).toMatchObject({ status: 400, error: "UPSTREAM_REJECTED" });
  });

  it("?dryRun=true queues a dry run: it decides and renews nothing", async () => {
    const reply = await world.post({ query: { dryRun: "true" } });
    expect(reply.status).toBe(202);
    expect(runOf(reply).dryRun).toBe(true);

    await world.drainRuns();

    const run = runOf(await world.get(runOf(reply).runId));
    expect(run).toMatchObject({ state: "succeeded", dryRun: true });
    expect(run.results?.map((r) => r.outcome)).toEqual(["would-renew"]);
    expect(world.app.sim.requestsFor("publicRenew")).toEqual([]);
    expect(world.app.sim.requestsFor("list")).toHaveLength(1);
  });

  it("CERTSCHED_DRY_RUN=true makes a run without ?dryRun a dry run, and says so in the run", async () => {
    await world.configure({ CERTSCHED_DRY_RUN: "true" });
    expect(runOf(await world.post()).dryRun).toBe(true);
    expect(runOf(await world.post({ query: { dryRun: "false" } })).dryRun).toBe(false);
  });

  it("a message that contradicts its run's dryRun cannot turn a dry run into a real sweep", async () => {
    const { runId } = runOf(await world.post({ query: { dryRun: "true" } }));
    // Whoever can write to the queue (or a stale message) says dryRun false for a dry run.
    await world.queue.clearMessages();
    await world.queue.sendMessage(JSON.stringify({ runId, dryRun: false }));

    await world.drainRuns();

    const run = runOf(await world.get(runId));
    expect(run).toMatchObject({ state: "succeeded", dryRun: true });
    expect(run.results?.map((r) => r.outcome)).toEqual(["would-renew"]);
    expect(world.app.sim.requestsFor("publicRenew")).toEqual([]);
  });

  it("a message with a field it does not know still runs its run (another version's message)", async () => {
    const { runId } = runOf(await world.post());
    await world.queue.clearMessages();
    await world.queue.sendMessage(JSON.stringify({ runId, dryRun: false, priority: "high" }));

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => d.outcome)).toEqual(["done"]);
    expect(runOf(await world.get(runId)).state).toBe("succeeded");
  });

  it("a message delivered again after its run finished does nothing", async () => {
    const { runId } = runOf(await world.post());
    await world.drainRuns();
    await world.queue.sendMessage(JSON.stringify({ runId, dryRun: false }));

    const again = await world.drainRuns();

    expect(again.map((d) => d.outcome)).toEqual(["done"]);
    expect(world.app.sim.requestsFor("list")).toHaveLength(1);
    expect(runOf(await world.get(runId)).state).toBe("succeeded");
  });
});

describe("a run delivered again after its attempt died", () => {
  it("counts what its own first attempt renewed as renewed by this run, not skipped within the grace", async () => {
    // The first attempt renews, then cannot record its outcome (as if the process died there).
    const store = world.store;
    let failFinish = true;
    await world.configure(
      {},
      {},
      {
        store: {
          ...store,
          save: async (run, options) => {
            if (failFinish && run.state === "succeeded") {
              failFinish = false;
              throw new CertschedError("RUNS_UNAVAILABLE", "run store: cannot write table (503)");
            }
            await store.save(run, options);
          },
        },
      },
    );
    const { runId } = runOf(await world.post());

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => [d.outcome, d.dequeueCount])).toEqual([
      ["retry", 1],
      ["done", 2],
    ]);
    expect(world.app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    const run = runOf(await world.get(runId));
    expect(run).toMatchObject({
      state: "succeeded",
      attempts: 2,
      counts: { due: 1, "renewal-scheduled": 1, skipped: 0 },
    });
    expect(run.results?.map((r) => [r.certificateName, r.outcome])).toEqual([
      ["www-contoso-com", "renewal-scheduled"],
    ]);
    expect(run.results?.[0]?.detail).toContain("an earlier attempt of this run");
  });

  it("another run still reports a renewal this one made as skipped within the grace", async () => {
    const first = runOf(await world.post()).runId;
    await world.drainRuns();
    const second = runOf(await world.post()).runId;

    await world.drainRuns();

    expect(runOf(await world.get(first)).counts).toMatchObject({ "renewal-scheduled": 1 });
    const run = runOf(await world.get(second));
    expect(run.counts).toMatchObject({ "renewal-scheduled": 0, skipped: 1 });
    expect(run.results?.[0]).toMatchObject({ outcome: "skipped", reason: "WithinGrace" });
    expect(world.app.sim.renewCallsFor("www-contoso-com")).toBe(1);
  });
});

describe("run messages other tools base64-encoded (Storage Explorer, the SDK's encoders)", () => {
  const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

  it("a base64-encoded run message runs its run, as plain JSON does", async () => {
    const { runId } = runOf(await world.post());
    await world.queue.clearMessages();
    await world.queue.sendMessage(base64(JSON.stringify({ runId, dryRun: false })));

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => [d.outcome, d.dequeueCount])).toEqual([["done", 1]]);
    expect(runOf(await world.get(runId))).toMatchObject({ state: "succeeded", attempts: 1 });
    expect(world.app.sim.renewCallsFor("www-contoso-com")).toBe(1);
  });

  it("base64 of something that is not a run message is still refused and poisoned", async () => {
    await world.queue.createIfNotExists();
    await world.queue.sendMessage(base64(JSON.stringify({ runId: "not-a-uuid", dryRun: false })));

    const deliveries = await world.drainRuns();

    expect(deliveries.at(-1)?.outcome).toBe("poisoned");
    expect(String(deliveries[0]?.error)).toContain("runId");
    expect(world.app.sim.requests).toEqual([]);
  });

  it("a base64-encoded poisoned message names its run", async () => {
    const { runId } = runOf(await world.post());
    await world.queue.clearMessages();
    await world.poison.createIfNotExists();
    await world.poison.sendMessage(base64(JSON.stringify({ runId, dryRun: false })));

    await world.drainPoison();

    expect(world.app.logs.map((l) => l.message)).toContain(
      `certsched run poisoned: run ${runId}: its message failed every delivery and is in the queue certsched-runs-poison; see docs/runs.md`,
    );
  });
});

describe("?wait=N", () => {
  it("answers 200 with the finished run when the sweep ends in time", async () => {
    const host = world.listenRuns();
    try {
      const reply = await world.post({ query: { wait: "60" } });

      expect(reply.status).toBe(200);
      expect(reply.headers.location).toBe(`/api/renewals/${runOf(reply).runId}`);
      expect(runOf(reply)).toMatchObject({
        state: "succeeded",
        counts: { "renewal-scheduled": 1 },
      });
    } finally {
      await host.stop();
    }
  });

  it("answers 202 with the run as it stands when the wait is over first", async () => {
    // Nobody consumes the queue: the run stays queued.
    const reply = await world.post({ query: { wait: "1" } });

    expect(reply.status).toBe(202);
    expect(runOf(reply).state).toBe("queued");
  });

  it("?wait=0 does not wait", async () => {
    const reply = await world.post({ query: { wait: "0" } });
    expect(reply.status).toBe(202);
  });

  it("accepts 200, the longest wait", async () => {
    const host = world.listenRuns();
    try {
      expect((await world.post({ query: { wait: "200" } })).status).toBe(200);
    } finally {
      await host.stop();
    }
  });

  it.each(["201", "-1", "1.5", "abc", "", " 5", "1e2", "0200"])(
    "refuses ?wait=%j with 400 naming wait, before queueing anything",
    async (value) => {
      const reply = await world.post({ query: { wait: value } });

      expect(reply.status).toBe(400);
      expect(reply.headers["content-type"]).toBe("application/problem+json");
      expect(reply.body).toMatchObject({
        code: "VALIDATION_FAILED",
        errors: [{ name: "wait", message: expect.stringMatching(/from 0 to 200/) }],
      });
      expect(await world.queue.exists()).toBe(false);
    },
  );
});

describe("the poison queue", () => {
  it("a run whose every delivery fails lands in certsched-runs-poison and shows as failed", async () => {
    const { maxDequeueCount } = hostQueueSettings();
    // The run store takes the queued and running states but fails every finished one.
    const store = world.store;
    await world.configure(
      {},
      {},
      {
        store: {
          ...store,
          save: async (run) => {
            if (run.state === "succeeded" || run.state === "failed") {
              throw new CertschedError("RUNS_UNAVAILABLE", "run store: cannot write table (503)");
            }
            await store.save(run);
          },
        },
      },
    );
    const { runId } = runOf(await world.post());

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => [d.outcome, d.dequeueCount])).toEqual([
      ...Array.from({ length: maxDequeueCount - 1 }, (_, i) => ["retry", i + 1]),
      ["poisoned", maxDequeueCount],
    ]);
    // Sweeping again on each delivery ordered nothing twice: the ledger remembered.
    expect(world.app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    const poisoned = await world.poison.peekMessages();
    expect(poisoned.peekedMessageItems.map((m) => JSON.parse(m.messageText))).toEqual([
      { runId, dryRun: false },
    ]);
    const running = runOf(await world.get(runId));
    expect(running).toMatchObject({ state: "running", attempts: maxDequeueCount });
    expect(running.problem).toContain("run store: cannot write table (503)");

    await world.configure();
    const handled = await world.drainPoison();

    expect(handled.map((d) => d.outcome)).toEqual(["done"]);
    const failed = runOf(await world.get(runId));
    expect(failed).toMatchObject({ state: "failed", attempts: maxDequeueCount });
    expect(failed.problem).toMatch(
      /^the run's queue message failed every delivery \(5 attempt\(s\)\) and was moved to the poison queue certsched-runs-poison; the last attempt failed: run store: cannot write table \(503\)$/,
    );
    expect(failed.finishedAt).toBeDefined();
    expect(
      world.app.logs
        .filter((l) => l.message.startsWith("certsched run poisoned: "))
        .map((l) => [l.functionName, l.level, l.message]),
    ).toEqual([
      [
        "poisonedRenewals",
        "error",
        `certsched run poisoned: run ${runId}: its message failed every delivery and is in the queue certsched-runs-poison; see docs/runs.md`,
      ],
    ]);
  });

  it("a message that is not a run is poisoned too, and logged as naming no run", async () => {
    await world.queue.createIfNotExists();
    await world.queue.sendMessage("{not json");

    const deliveries = await world.drainRuns();

    expect(deliveries.at(-1)?.outcome).toBe("poisoned");
    expect(deliveries).toHaveLength(hostQueueSettings().maxDequeueCount);
    expect(world.app.sim.requests).toEqual([]);
    await world.drainPoison();
    expect(world.app.logs.map((l) => l.message)).toContain(
      "certsched run poisoned: a message that names no run: its message failed every delivery and is in the queue certsched-runs-poison; see docs/runs.md",
    );
  });

  it("a poisoned message of a run that finished meanwhile leaves the run as it was", async () => {
    const { runId } = runOf(await world.post());
    await world.drainRuns();
    await world.poison.createIfNotExists();
    await world.poison.sendMessage(JSON.stringify({ runId, dryRun: false }));

    await world.drainPoison();

    expect(runOf(await world.get(runId))).toMatchObject({ state: "succeeded", failed: false });
  });
});

describe("the poison handler acts only on what the run store confirms was delivered and failed", () => {
  const poisonMessage = async (runId: string) => {
    await world.poison.createIfNotExists();
    await world.poison.sendMessage(JSON.stringify({ runId, dryRun: false }));
    return world.drainPoison();
  };
  const notConfirmed = (runId: string) =>
    world.app.logs.filter(
      (l) =>
        l.level === "warning" &&
        l.message.startsWith(`certsched run ${runId}: a poisoned message names it`),
    );

  it("a message written to the poison queue naming a healthy queued run leaves it queued; its real delivery sweeps", async () => {
    const { runId } = runOf(await world.post());

    const handled = await poisonMessage(runId);

    expect(handled.map((d) => d.outcome)).toEqual(["done"]);
    expect(runOf(await world.get(runId))).toMatchObject({ state: "queued", attempts: 0 });
    expect(notConfirmed(runId)).toHaveLength(1);
    expect(notConfirmed(runId)[0]?.message).toContain("queued, 0 delivery(ies)");

    await world.drainRuns();

    expect(runOf(await world.get(runId))).toMatchObject({ state: "succeeded", attempts: 1 });
    expect(world.app.sim.renewCallsFor("www-contoso-com")).toBe(1);
  });

  it("a poisoned copy naming a run whose first attempt failed (the host retries it) leaves it running", async () => {
    const { runId } = runOf(await world.post());
    const run = await world.store.get(runId);
    if (!run) throw new Error("no run");
    await world.store.save({
      ...run,
      state: "running",
      startedAt: new Date(),
      attempts: MAX_DEQUEUE_COUNT - 1,
      problem: "run store: cannot write table (503)",
    });

    await poisonMessage(runId);

    expect(runOf(await world.get(runId))).toMatchObject({
      state: "running",
      attempts: MAX_DEQUEUE_COUNT - 1,
    });
    expect(notConfirmed(runId)).toHaveLength(1);
  });

  it("a poisoned message naming a run the store does not hold writes no run", async () => {
    const runId = "0f0e0d0c-0b0a-4908-8706-050403020100";

    await poisonMessage(runId);

    expect((await world.get(runId)).status).toBe(404);
  });

  it("a last attempt with no recorded failure counts as failed once the function timeout has passed since it started, not a millisecond before", async () => {
    const clock = fakeClock(new Date().toISOString());
    await world.configure({}, { now: clock.now });
    const { runId } = runOf(await world.post());
    const run = await world.store.get(runId);
    if (!run) throw new Error("no run");
    // The fifth delivery started and the process died mid-sweep: nothing recorded its failure.
    await world.store.save({
      ...run,
      state: "running",
      startedAt: clock.now(),
      attempts: MAX_DEQUEUE_COUNT,
    });

    clock.advance(ATTEMPT_TIMEOUT_MS - 1);
    await poisonMessage(runId);
    expect(runOf(await world.get(runId)).state).toBe("running");

    clock.advance(1);
    await poisonMessage(runId);
    const failed = runOf(await world.get(runId));
    expect(failed).toMatchObject({ state: "failed", attempts: MAX_DEQUEUE_COUNT });
    expect(failed.problem).toBe(
      "the run's queue message failed every delivery (5 attempt(s)) and was moved to the poison queue certsched-runs-poison; the last attempt did not finish within the function timeout (10 min)",
    );
  });
});

describe("host.json", () => {
  it("retries a run message a few times, waits between tries, and sends it as plain JSON", () => {
    const settings = hostQueueSettings();
    expect(settings.maxDequeueCount).toBe(5);
    expect(settings.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(30);
    expect(settings.messageEncoding).toBe("none");
    // At most four runs at once per instance (batchSize + newBatchThreshold): with declared
    // accounts, four accounts' parts; the next two fetched as soon as two are done.
    expect(settings.batchSize + settings.newBatchThreshold).toBe(4);
    expect(settings.batchSize).toBe(2);
  });

  it("functionTimeout is the attempt timeout the poison handler and GET rely on", () => {
    const host = JSON.parse(readFileSync(new URL("../../../host.json", import.meta.url), "utf8"));
    const [h = 0, m = 0, s = 0] = String(host.functionTimeout).split(":").map(Number);
    expect((h * 3600 + m * 60 + s) * 1000).toBe(ATTEMPT_TIMEOUT_MS);
  });
});
