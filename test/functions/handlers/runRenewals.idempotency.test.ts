import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IDEMPOTENCY_WINDOW_MS, MAX_KEY_LENGTH } from "../../../shared/core/runs/idempotencyKey.js";
import { fakeClock } from "../../support/clock.js";
import { EASY_AUTH_ON, principalHeader } from "../../support/principals.js";
import { type RunsWorld, runOf, startRunsWorld } from "../../support/runs.js";

let world: RunsWorld;
let clock: ReturnType<typeof fakeClock>;

beforeEach(async () => {
  world = await startRunsWorld();
  clock = fakeClock(new Date().toISOString());
  await world.configure({}, { now: clock.now });
});
afterEach(async () => {
  delete process.env.WEBSITE_AUTH_ENABLED;
  expect(world.app.leaks(await world.storedTexts())).toEqual([]);
  await world.close();
});

const key = (value: string) => ({ headers: { "Idempotency-Key": value } });

async function messages(): Promise<unknown[]> {
  const peeked = await world.queue.peekMessages({ numberOfMessages: 32 });
  return peeked.peekedMessageItems.map((m) => JSON.parse(m.messageText));
}

describe("Idempotency-Key", () => {
  it("the same key returns the same run, and queues one message", async () => {
    const first = await world.post(key("9b2f6a1e-4c1d-4f7a-9a53-0b8d1c2e3f40"));
    const again = await world.post(key("9b2f6a1e-4c1d-4f7a-9a53-0b8d1c2e3f40"));

    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(runOf(again).runId).toBe(runOf(first).runId);
    expect(again.headers.location).toBe(first.headers.location);
    expect(await messages()).toEqual([{ runId: runOf(first).runId, dryRun: false }]);
  });

  it("a repeat after the run finished answers with the finished run, sweeping nothing again", async () => {
    const { runId } = runOf(await world.post(key("nightly-2026-03-01")));
    await world.drainRuns();

    const again = await world.post(key("nightly-2026-03-01"));

    expect(again.status).toBe(200);
    expect(runOf(again)).toMatchObject({ runId, state: "succeeded" });
    expect(await messages()).toEqual([]);
    expect(world.app.sim.requestsFor("list")).toHaveLength(1);
  });

  it("two requests with one key at the same moment get one run", async () => {
    const replies = await Promise.all([1, 2, 3].map(() => world.post(key("concurrent-key"))));

    expect(new Set(replies.map((r) => runOf(r).runId)).size).toBe(1);
    expect(await messages()).toHaveLength(1);
  });

  it("different keys, or none, start different runs", async () => {
    const a = runOf(await world.post(key("key-a"))).runId;
    const b = runOf(await world.post(key("key-b"))).runId;
    const c = runOf(await world.post()).runId;
    const d = runOf(await world.post()).runId;

    expect(new Set([a, b, c, d]).size).toBe(4);
    expect(await messages()).toHaveLength(4);
  });

  it("names its run until 24 h after first use; at 24 h it starts a new one", async () => {
    const { runId } = runOf(await world.post(key("daily")));
    // Swept: a run left queued for a day would be sent again as undelivered (staleRuns.test.ts).
    await world.drainRuns();

    clock.advance(IDEMPOTENCY_WINDOW_MS - 1);
    expect(runOf(await world.post(key("daily"))).runId).toBe(runId);

    clock.advance(1);
    const fresh = runOf(await world.post(key("daily"))).runId;
    expect(fresh).not.toBe(runId);
    // And the new run holds the key from then on.
    expect(runOf(await world.post(key("daily"))).runId).toBe(fresh);
    expect(await messages()).toEqual([{ runId: fresh, dryRun: false }]);
  });

  it("refuses the key for another request (dryRun differs) with 422 naming the header", async () => {
    const { runId } = runOf(await world.post(key("reused")));

    const reply = await world.post({ ...key("reused"), query: { dryRun: "true" } });

    expect(reply.status).toBe(422);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({
      code: "IDEMPOTENCY_KEY_REUSED",
      detail: expect.stringContaining(runId),
      errors: [
        { name: "Idempotency-Key", message: "was used for a different request within 24 h" },
      ],
    });
    expect(await messages()).toHaveLength(1);
  });

  it(`accepts a key of ${MAX_KEY_LENGTH} characters from the whole charset`, async () => {
    const value = "Az09._:~+/=-".repeat(11).slice(0, MAX_KEY_LENGTH);
    expect(value).toHaveLength(MAX_KEY_LENGTH);

    expect((await world.post(key(value))).status).toBe(202);
  });

  it.each([
    ["empty", "", "must not be empty"],
    [
      "too long",
      "k".repeat(MAX_KEY_LENGTH + 1),
      `must be at most ${MAX_KEY_LENGTH} characters (it has 129)`,
    ],
    ["a space", "two words", "must hold only letters"],
    ["two keys joined by the header list", "a, b", "must hold only letters"],
    ["non-ASCII", "clé", "must hold only letters"],
    ["a quote", 'a"b', "must hold only letters"],
  ])(
    "refuses a key with %s: 400 naming Idempotency-Key, nothing queued",
    async (_, value, rule) => {
      const reply = await world.post(key(value));

      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({
        code: "VALIDATION_FAILED",
        errors: [{ name: "Idempotency-Key", message: expect.stringContaining(rule) }],
      });
      expect(await world.queue.exists()).toBe(false);
      // The key is the caller's text: never echoed.
      if (value.length > 3) expect(reply.text).not.toContain(value);
    },
  );

  it("stores the key's hash, never the key", async () => {
    await world.post(key("a-key-that-must-not-be-stored"));

    const texts = await world.storedTexts();
    expect(texts.some((t) => t.includes("a-key-that-must-not-be-stored"))).toBe(false);
    expect(texts.some((t) => /"partitionKey":"key","rowKey":"[0-9a-f]{64}"/.test(t))).toBe(true);
    // Nor logged, nor answered, when it is used again either.
    const again = await world.post(key("a-key-that-must-not-be-stored"));
    expect(again.text).not.toContain("a-key-that-must-not-be-stored");
    expect(world.app.logs.length).toBeGreaterThan(0);
    expect(world.app.logs.filter((l) => l.message.includes("a-key-that-must-not-be"))).toEqual([]);
  });
});

describe("Idempotency-Key is scoped to its caller", () => {
  const OPERATOR = "certsched.Operator";
  const entra = (id: string, value: string) => ({
    headers: {
      "Idempotency-Key": value,
      "x-ms-client-principal": principalHeader({
        id,
        name: `user-${id.slice(-2)}`,
        roles: [OPERATOR],
      }),
    },
  });
  const ADA = "00000000-0000-0000-0000-0000000000aa";
  const BOB = "00000000-0000-0000-0000-0000000000bb";

  it("another Entra ID caller sending the first one's key gets a run of its own, queued", async () => {
    Object.assign(process.env, EASY_AUTH_ON);
    const ada = await world.post(entra(ADA, "shared-key"));
    const bob = await world.post(entra(BOB, "shared-key"));

    expect([ada.status, bob.status]).toEqual([202, 202]);
    expect(runOf(bob).runId).not.toBe(runOf(ada).runId);
    expect(runOf(bob).requestedBy).toContain(BOB);
    expect(await messages()).toEqual([
      { runId: runOf(ada).runId, dryRun: false },
      { runId: runOf(bob).runId, dryRun: false },
    ]);
    // Each caller's repeat still names its own run, and queues nothing.
    expect(runOf(await world.post(entra(ADA, "shared-key"))).runId).toBe(runOf(ada).runId);
    expect(runOf(await world.post(entra(BOB, "shared-key"))).runId).toBe(runOf(bob).runId);
    expect(await messages()).toHaveLength(2);
  });

  it("another caller's key with another dryRun is not a 422 naming the first caller's run", async () => {
    Object.assign(process.env, EASY_AUTH_ON);
    const ada = runOf(await world.post(entra(ADA, "k1"))).runId;

    const bob = await world.post({ ...entra(BOB, "k1"), query: { dryRun: "true" } });

    expect(bob.status).toBe(202);
    expect(bob.text).not.toContain(ada);
    expect(runOf(bob)).toMatchObject({ dryRun: true, state: "queued" });
  });

  it("holders of two function keys sending one key get two runs; the function key is never stored", async () => {
    const functionKey = (fk: string) => ({
      headers: { "Idempotency-Key": "same", "x-functions-key": fk },
    });
    const first = await world.post(functionKey("fk-one-0123456789abcdefghijklmnopqrstuvwxyz"));
    const second = await world.post({
      headers: { "Idempotency-Key": "same" },
      query: { code: "fk-two-0123456789abcdefghijklmnopqrstuvwxyz" },
    });
    const again = await world.post(functionKey("fk-one-0123456789abcdefghijklmnopqrstuvwxyz"));

    expect(runOf(second).runId).not.toBe(runOf(first).runId);
    expect(runOf(again).runId).toBe(runOf(first).runId);
    expect(await messages()).toHaveLength(2);
    const stored = (await world.storedTexts()).join("\n");
    expect(stored).not.toContain("fk-one-");
    expect(stored).not.toContain("fk-two-");
  });
});
