import { type AddressInfo, createServer, type Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storageRunQueue } from "../../../../shared/adapters/queue/storageRunQueue.js";
import { tableRunStore } from "../../../../shared/adapters/storage/tableRunStore.js";
import { ANONYMOUS_SCOPE, keyHashOf } from "../../../../shared/core/runs/idempotencyKey.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { closedPort, STACK_FRAME } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";
import { type RunsWorld, runOf, startRunsWorld } from "../../../support/runs.js";

let world: RunsWorld;

beforeEach(async () => {
  world = await startRunsWorld();
});
afterEach(async () => {
  expect(world.app.leaks(await world.storedTexts())).toEqual([]);
  await world.close();
});

/** The development account's connection string, every endpoint on a port nobody listens on. */
async function deadStorage(): Promise<string> {
  const port = await closedPort();
  return world.connectionString.replace(/127\.0\.0\.1:\d+/g, `127.0.0.1:${port}`);
}

describe("storage unavailable", () => {
  it("the run store down: POST answers 503 naming the run store, nothing queued", async () => {
    await world.configure(
      {},
      {},
      { store: tableRunStore({ connectionString: await deadStorage() }) },
    );

    const reply = await world.post();

    expect(reply.status).toBe(503);
    expect(reply.headers["retry-after"]).toBe("60");
    expect(reply.body).toMatchObject({
      code: "RUNS_UNAVAILABLE",
      detail: expect.stringMatching(/^run store: cannot write table certschedruns \(/),
    });
    expect(reply.text).not.toMatch(STACK_FRAME);
    expect(await world.queue.exists()).toBe(false);
  });

  it("the run store down: GET answers 503 with Retry-After naming the run store, never a 500", async () => {
    const { runId } = runOf(await world.post());
    await world.configure(
      {},
      {},
      { store: tableRunStore({ connectionString: await deadStorage() }) },
    );

    const reply = await world.get(runId);

    expect(reply.status).toBe(503);
    expect(reply.headers["retry-after"]).toBe("60");
    expect(reply.body).toMatchObject({
      code: "RUNS_UNAVAILABLE",
      detail: expect.stringMatching(/^run store: cannot read table certschedruns \(/),
    });
    expect(reply.text).not.toMatch(STACK_FRAME);
  });

  it("?wait with the run store unreadable after the run was queued: 202 with the queued run, not a 503 inviting a second run", async () => {
    const dead = tableRunStore({ connectionString: await deadStorage() });
    await world.configure({}, {}, { store: { ...world.store, get: (runId) => dead.get(runId) } });

    const reply = await world.post({ query: { wait: "5" } });

    expect(reply.status).toBe(202);
    const run = runOf(reply);
    expect(run.state).toBe("queued");
    expect(reply.headers.location).toBe(`/api/renewals/${run.runId}`);
    const messages = await world.queue.peekMessages({ numberOfMessages: 32 });
    expect(messages.peekedMessageItems).toHaveLength(1);
  });

  it("?wait with a run store that stops answering: 202 with the queued run when the wait is over, not held until the store's own timeout", async () => {
    // A real socket that accepts and never answers (a storage front end that hangs).
    const sockets = new Set<Socket>();
    const hanging = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    const { port } = hanging.address() as AddressInfo;
    try {
      const silent = tableRunStore({
        connectionString: world.connectionString.replace(/127\.0\.0\.1:\d+/g, `127.0.0.1:${port}`),
      });
      await world.configure(
        {},
        {},
        { store: { ...world.store, get: (runId) => silent.get(runId) } },
      );

      const reply = await world.post({ query: { wait: "1" } });

      expect(reply.status).toBe(202);
      expect(runOf(reply).state).toBe("queued");
      expect(sockets.size).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });

  it("a send that failed after its message went out (picked up already): the run is not marked failed over its delivery", async () => {
    const queue = storageRunQueue({
      connectionString: world.connectionString,
      queueName: world.queue.name,
    });
    await world.configure(
      {},
      {},
      {
        queue: {
          kind: "storage",
          send: async (message, log) => {
            await queue.send(message, log);
            // The trigger picks it up at once and starts (as processRun's first write) ...
            const run = await world.store.get(message.runId);
            if (!run) throw new Error("no run");
            await world.store.save({ ...run, state: "running", attempts: 1 });
            // ... while the send's answer is lost on the way back.
            throw new CertschedError("RUNS_UNAVAILABLE", "run queue: cannot send (timeout)");
          },
        },
      },
    );

    const reply = await world.post();

    expect(reply.status).toBe(503);
    const [message] = (await world.queue.peekMessages()).peekedMessageItems;
    const { runId } = JSON.parse(message?.messageText ?? "{}") as { runId: string };
    expect(await world.store.get(runId)).toMatchObject({ state: "running", problem: undefined });
  });

  it("a run row that is not a run: GET answers 503 naming the stored row, not a 400 blaming the caller", async () => {
    const { runId } = runOf(await world.post());
    await world.runsTable.upsertEntity(
      { partitionKey: "run", rowKey: runId, state: "exploded", attempts: "many" },
      "Replace",
    );

    const reply = await world.get(runId);

    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({
      code: "RUNS_UNAVAILABLE",
      detail: expect.stringContaining(`run ${runId} is stored in a form certsched cannot read`),
    });
    expect((reply.body as { detail: string }).detail).toContain("state");
    expect(reply.text).not.toMatch(STACK_FRAME);
  });

  it("the queue down: 503, the run marked failed as not queued, the key free for a retry", async () => {
    await world.configure(
      {},
      {},
      { queue: storageRunQueue({ connectionString: await deadStorage() }) },
    );
    const key = { headers: { "Idempotency-Key": "retry-me" } };

    const reply = await world.post(key);

    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({
      code: "RUNS_UNAVAILABLE",
      detail: expect.stringMatching(/^run queue: cannot send to queue certsched-runs \(/),
    });
    const stored: { rowKey: string; state: string; problem?: string }[] = [];
    for await (const row of world.runsTable.listEntities<{ state: string; problem?: string }>({
      queryOptions: { filter: "PartitionKey eq 'run'" },
    })) {
      stored.push(row as { rowKey: string; state: string; problem?: string });
    }
    expect(stored.map((r) => [r.state, r.problem?.split(":")[0]])).toEqual([
      ["failed", "the run could not be queued"],
    ]);

    // The queue is back: the same key starts a new run (the failed one released it).
    await world.configure();
    const again = await world.post(key);
    expect(again.status).toBe(202);
    expect(runOf(again).runId).not.toBe(stored[0]?.rowKey);
  });

  it("a key whose first request is still being accepted: 409 with Retry-After, nothing queued", async () => {
    // The first request filed the key and has not stored its run yet.
    const hash = keyHashOf(ANONYMOUS_SCOPE, "in-flight");
    await world.store.claimKey(
      hash,
      { runId: "0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f", dryRun: false, at: new Date() },
      new Date(),
      60_000,
    );

    const reply = await world.post({ headers: { "Idempotency-Key": "in-flight" } });

    expect(reply.status).toBe(409);
    expect(reply.headers["retry-after"]).toBe("1");
    expect(reply.body).toMatchObject({
      code: "IDEMPOTENCY_KEY_IN_FLIGHT",
      detail: expect.stringContaining("0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f"),
    });
    expect(await world.queue.exists()).toBe(false);
  });

  it("a key whose first request died before storing its run is free again after a minute, not before", async () => {
    const clock = fakeClock(new Date().toISOString());
    await world.configure({}, { now: clock.now });
    const file = (key: string, ago: number) =>
      world.store.claimKey(
        keyHashOf(ANONYMOUS_SCOPE, key),
        {
          runId: "0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f",
          dryRun: false,
          at: new Date(clock.now().getTime() - ago),
        },
        new Date(clock.now().getTime() - ago),
        60_000_000,
      );
    await file("died-59999-ms-ago", 59_999);
    await file("died-60000-ms-ago", 60_000);

    const held = await world.post({ headers: { "Idempotency-Key": "died-59999-ms-ago" } });
    const freed = await world.post({ headers: { "Idempotency-Key": "died-60000-ms-ago" } });

    expect(held.status).toBe(409);
    expect(freed.status).toBe(202);
    expect(runOf(freed).runId).not.toBe("0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f");
    // From now on the key names the new run.
    const again = await world.post({ headers: { "Idempotency-Key": "died-60000-ms-ago" } });
    expect(runOf(again).runId).toBe(runOf(freed).runId);
    expect(
      (await world.queue.peekMessages({ numberOfMessages: 32 })).peekedMessageItems,
    ).toHaveLength(1);
  });
});
