import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanupHistory } from "../../../../functions/cleanupHistory.js";
import { ANONYMOUS_SCOPE, keyHashOf } from "../../../../shared/core/runs/idempotencyKey.js";
import {
  ATTEMPT_TIMEOUT_MS,
  MAX_DEQUEUE_COUNT,
  type Run,
} from "../../../../shared/core/runs/run.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { UNDELIVERED_AFTER_MS } from "../../../../shared/usecases/steps/settleRun.js";
import { fakeClock } from "../../../support/clock.js";
import { timer } from "../../../support/invoke.js";
import { type RunsWorld, runOf, startRunsWorld } from "../../../support/runs.js";

/**
 * Runs that can never finish. A process killed after POST /api/renewals stored its run
 * but before the message went out left the run queued forever, and the same Idempotency-Key
 * answered with that dead run for 24 h. Now a queued run with no delivery within
 * UNDELIVERED_AFTER_MS is sent again once, and failed with a cause if that is not delivered
 * either; a retry with the key then starts a fresh run.
 */

let world: RunsWorld;
let clock: ReturnType<typeof fakeClock>;

beforeEach(async () => {
  world = await startRunsWorld();
  clock = fakeClock(new Date().toISOString());
  await world.configure({}, { now: clock.now });
});
afterEach(async () => {
  expect(world.app.leaks(await world.storedTexts())).toEqual([]);
  await world.close();
});

async function messages(): Promise<unknown[]> {
  if (!(await world.queue.exists())) return [];
  const peeked = await world.queue.peekMessages({ numberOfMessages: 32 });
  return peeked.peekedMessageItems.map((m) => JSON.parse(m.messageText));
}

/** What POST /api/renewals leaves when its process dies after storing the run, before sending. */
async function diedBeforeSending(key?: string): Promise<string> {
  const runId = randomUUID();
  const run: Run = {
    runId,
    state: "queued",
    dryRun: false,
    requestedAt: clock.now(),
    requestedBy: "function-key",
    attempts: 0,
  };
  if (key) {
    await world.store.claimKey(
      keyHashOf(ANONYMOUS_SCOPE, key),
      { runId, dryRun: false, at: clock.now() },
      clock.now(),
      60_000,
    );
  }
  await world.store.save(run);
  return runId;
}

const key = (value: string) => ({ headers: { "Idempotency-Key": value } });

describe("a queued run whose message never went out", () => {
  it("is sent again when read UNDELIVERED_AFTER_MS after it was queued, not a millisecond before, and then sweeps", async () => {
    const runId = await diedBeforeSending();

    clock.advance(UNDELIVERED_AFTER_MS - 1);
    expect(runOf(await world.get(runId))).toMatchObject({ state: "queued", attempts: 0 });
    expect(await messages()).toEqual([]);

    clock.advance(1);
    const resent = runOf(await world.get(runId));
    expect(resent).toMatchObject({ state: "queued", resentAt: clock.now().toISOString() });
    expect(await messages()).toEqual([{ runId, dryRun: false }]);
    // Read again: sent once, not once per read.
    await world.get(runId);
    expect(await messages()).toHaveLength(1);

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => d.outcome)).toEqual(["done"]);
    expect(runOf(await world.get(runId))).toMatchObject({ state: "succeeded", attempts: 1 });
    expect(world.app.sim.renewCallsFor("www-contoso-com")).toBe(1);
  });

  it("a send again that fails (the queue down) is not counted: the next read sends it, and the run is not failed as undelivered", async () => {
    const runId = await diedBeforeSending();
    clock.advance(UNDELIVERED_AFTER_MS);
    await world.configure(
      {},
      { now: clock.now },
      {
        queue: {
          kind: "storage",
          send: async () => {
            throw new CertschedError("RUNS_UNAVAILABLE", "run queue: cannot send (503)");
          },
        },
      },
    );

    const read = await world.get(runId);

    expect(read.status).toBe(200);
    expect(runOf(read).state).toBe("queued");
    expect(runOf(read)).not.toHaveProperty("resentAt");
    expect(await messages()).toEqual([]);

    await world.configure({}, { now: clock.now });
    clock.advance(UNDELIVERED_AFTER_MS);
    expect(runOf(await world.get(runId))).toMatchObject({
      state: "queued",
      resentAt: clock.now().toISOString(),
    });
    expect(await messages()).toEqual([{ runId, dryRun: false }]);
  });

  it("the same Idempotency-Key, after the bound, sends it again instead of answering a dead run", async () => {
    const runId = await diedBeforeSending("crashed-key");
    clock.advance(UNDELIVERED_AFTER_MS);

    const again = await world.post(key("crashed-key"));

    expect(again.status).toBe(202);
    expect(runOf(again)).toMatchObject({ runId, state: "queued" });
    expect(await messages()).toEqual([{ runId, dryRun: false }]);
    await world.drainRuns();
    expect(runOf(await world.get(runId)).state).toBe("succeeded");
  });

  it("sent again and still not delivered within the bound: failed with the cause, and the key starts a fresh run", async () => {
    const runId = await diedBeforeSending("lost-twice");
    clock.advance(UNDELIVERED_AFTER_MS);
    await world.get(runId);
    // The copy is lost too (deleted by hand, say).
    await world.queue.clearMessages();

    clock.advance(UNDELIVERED_AFTER_MS - 1);
    expect(runOf(await world.get(runId)).state).toBe("queued");
    clock.advance(1);
    const failed = runOf(await world.get(runId));

    expect(failed).toMatchObject({ state: "failed", attempts: 0 });
    expect(failed.finishedAt).toBe(clock.now().toISOString());
    expect(failed.problem).toBe(
      "no delivery of the run's queue message within 5 min of queueing it, nor within 5 min of sending it again: the message was lost (the request that queued it stopped before sending it, or the message was deleted); start a new run",
    );
    expect(await messages()).toEqual([]);

    const fresh = await world.post(key("lost-twice"));

    expect(fresh.status).toBe(202);
    const freshId = runOf(fresh).runId;
    expect(freshId).not.toBe(runId);
    expect(await messages()).toEqual([{ runId: freshId, dryRun: false }]);
    // The key names the fresh run from then on.
    expect(runOf(await world.post(key("lost-twice"))).runId).toBe(freshId);
    expect(await messages()).toHaveLength(1);
  });

  it("failed only when the queue shows every waiting message: behind 32 others it cannot tell and waits; behind 31 it fails", async () => {
    const runId = await diedBeforeSending();
    clock.advance(UNDELIVERED_AFTER_MS);
    await world.get(runId);
    await world.queue.clearMessages();
    // Other runs' messages, base64 among them, fill what one look at the queue shows.
    for (let i = 0; i < 32; i++) {
      const text = JSON.stringify({ runId: randomUUID(), dryRun: false });
      await world.queue.sendMessage(i % 2 ? Buffer.from(text).toString("base64") : text);
    }
    clock.advance(UNDELIVERED_AFTER_MS);

    expect(runOf(await world.get(runId)).state).toBe("queued");

    const [first] = (await world.queue.receiveMessages({ numberOfMessages: 1 }))
      .receivedMessageItems;
    if (!first) throw new Error("no message");
    await world.queue.deleteMessage(first.messageId, first.popReceipt);
    expect(runOf(await world.get(runId))).toMatchObject({ state: "failed", attempts: 0 });
  });

  it("a copy of its message waiting base64-encoded is not lost either", async () => {
    const runId = await diedBeforeSending();
    clock.advance(UNDELIVERED_AFTER_MS);
    await world.get(runId);
    await world.queue.clearMessages();
    await world.queue.sendMessage(
      Buffer.from(JSON.stringify({ runId, dryRun: false })).toString("base64"),
    );
    clock.advance(UNDELIVERED_AFTER_MS);

    expect(runOf(await world.get(runId)).state).toBe("queued");
  });

  it("a key whose run failed as undelivered starts a fresh run for another dryRun too, not a 422", async () => {
    const runId = await diedBeforeSending("lost-dry");
    clock.advance(UNDELIVERED_AFTER_MS);
    await world.get(runId);
    await world.queue.clearMessages();
    clock.advance(UNDELIVERED_AFTER_MS);

    const fresh = await world.post({ ...key("lost-dry"), query: { dryRun: "true" } });

    expect(fresh.status).toBe(202);
    expect(runOf(fresh)).toMatchObject({ dryRun: true, state: "queued" });
    expect(runOf(fresh).runId).not.toBe(runId);
    expect(runOf(await world.get(runId))).toMatchObject({ state: "failed" });
  });

  it("a poisoned message naming a stale queued run sends it again rather than failing it", async () => {
    const runId = await diedBeforeSending();
    clock.advance(UNDELIVERED_AFTER_MS);
    await world.poison.createIfNotExists();
    await world.poison.sendMessage(JSON.stringify({ runId, dryRun: false }));

    await world.drainPoison();

    expect(runOf(await world.get(runId)).state).toBe("queued");
    expect(await messages()).toEqual([{ runId, dryRun: false }]);
  });
});

describe("a healthy queued run", () => {
  it("is left alone within the bound: one message, one sweep", async () => {
    const { runId } = runOf(await world.post(key("healthy")));
    clock.advance(UNDELIVERED_AFTER_MS - 1);

    expect(runOf(await world.get(runId)).state).toBe("queued");
    expect(runOf(await world.post(key("healthy"))).runId).toBe(runId);
    expect(await messages()).toHaveLength(1);
  });

  it("sent again while its first message was only slow: the two copies sweep it once", async () => {
    const { runId } = runOf(await world.post());
    clock.advance(UNDELIVERED_AFTER_MS);
    await world.get(runId);
    expect(await messages()).toHaveLength(2);

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => d.outcome)).toEqual(["done", "done"]);
    expect(runOf(await world.get(runId))).toMatchObject({ state: "succeeded", attempts: 1 });
    expect(world.app.sim.requestsFor("list")).toHaveLength(1);
    expect(world.app.sim.renewCallsFor("www-contoso-com")).toBe(1);
  });

  it("waiting in the queue past both bounds (a busy instance, a long sweep ahead): not failed as lost, and it sweeps when delivered", async () => {
    const { runId } = runOf(await world.post());
    clock.advance(UNDELIVERED_AFTER_MS);
    await world.get(runId);
    expect(await messages()).toHaveLength(2);

    // Both copies still wait in the queue: nothing was lost.
    clock.advance(UNDELIVERED_AFTER_MS);
    const read = runOf(await world.get(runId));
    expect(read.state).toBe("queued");
    expect(read).not.toHaveProperty("problem");
    await cleanupHistory(timer(), world.app.context("cleanupHistory"));
    expect(runOf(await world.get(runId)).state).toBe("queued");

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => d.outcome)).toEqual(["done", "done"]);
    expect(runOf(await world.get(runId))).toMatchObject({ state: "succeeded", attempts: 1 });
    expect(world.app.sim.renewCallsFor("www-contoso-com")).toBe(1);
  });

  it("a copy delivered while another delivery of the run is sweeping does nothing", async () => {
    const { runId } = runOf(await world.post());
    clock.advance(UNDELIVERED_AFTER_MS);
    await world.get(runId);
    const run = await world.store.get(runId);
    if (!run) throw new Error("no run");
    // One copy was picked up and is sweeping (its first delivery) when the other arrives.
    await world.store.save({ ...run, state: "running", startedAt: clock.now(), attempts: 1 });

    const deliveries = await world.drainRuns();

    expect(deliveries.map((d) => [d.outcome, d.dequeueCount])).toEqual([
      ["done", 1],
      ["done", 1],
    ]);
    expect(world.app.sim.requestsFor("list")).toEqual([]);
    expect(runOf(await world.get(runId))).toMatchObject({ state: "running", attempts: 1 });
  });
});

describe("runs nobody reads again", () => {
  it("the daily cleanup sends a lost run's message again, and a pass later fails it with the cause", async () => {
    const lost = await diedBeforeSending();
    const { runId: deleted } = runOf(await world.post());
    await world.queue.clearMessages();
    const young = await diedBeforeSending();
    clock.advance(UNDELIVERED_AFTER_MS);
    const younger = await diedBeforeSending();

    await cleanupHistory(timer(), world.app.context("cleanupHistory"));

    expect(new Set((await messages()).map((m) => (m as { runId: string }).runId))).toEqual(
      new Set([lost, deleted, young]),
    );
    expect(runOf(await world.get(younger)).state).toBe("queued");
    await world.queue.clearMessages();
    clock.advance(UNDELIVERED_AFTER_MS);

    await cleanupHistory(timer(), world.app.context("cleanupHistory"));

    for (const runId of [lost, deleted, young]) {
      expect(runOf(await world.get(runId))).toMatchObject({ state: "failed", attempts: 0 });
    }
    expect(world.app.logs.map((l) => l.message)).toContain(
      "certsched run store: moved on 3 unfinished run(s)",
    );
  });
});

describe("a running run whose deliveries are spent", () => {
  it("is failed when read once its last attempt is past the function timeout, not a millisecond before", async () => {
    const { runId } = runOf(await world.post());
    const run = await world.store.get(runId);
    if (!run) throw new Error("no run");
    // The fifth delivery started and its process died: no poison message confirmed it in time.
    await world.store.save({
      ...run,
      state: "running",
      startedAt: clock.now(),
      attempts: MAX_DEQUEUE_COUNT,
    });

    clock.advance(ATTEMPT_TIMEOUT_MS - 1);
    expect(runOf(await world.get(runId)).state).toBe("running");
    clock.advance(1);
    const failed = runOf(await world.get(runId));

    expect(failed).toMatchObject({ state: "failed", attempts: MAX_DEQUEUE_COUNT });
    expect(failed.problem).toMatch(/did not finish within the function timeout \(10 min\)$/);
  });
});
