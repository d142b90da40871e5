import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { tableInventory } from "../../../shared/adapters/storage/tableInventory.js";
import { PREFLIGHT_ADVICE } from "../../../shared/core/preflight/advice.js";
import { uniqueTableName } from "../../support/app.js";
import { type RunsWorld, runOf, startRunsWorld } from "../../support/runs.js";

/**
 * POST /api/renewals[?force=true] and the last preflight: the queued run carries
 * `force` in its message and its record; the queue trigger's sweep reports a blocked certificate
 * and, forced, renews it. Over Azurite (runs table, queue, ledger, inventory) and the simulator.
 */

let world: RunsWorld;
const BLOCKED = "www-contoso-com";

beforeEach(async () => {
  world = await startRunsWorld();
  const inventory = tableInventory({
    connectionString: inject("azuriteTableConnectionString"),
    tableName: uniqueTableName("runspf"),
  });
  const at = new Date(Date.now() - 60_000);
  await inventory.upsert([{ certificateName: BLOCKED, source: "due-list", seenAt: at }]);
  await inventory.recordPreflight(BLOCKED, {
    at,
    status: "will-fail",
    rootDomain: "www.contoso.com",
    checks: [{ check: "caa", status: "fail", reason: "caa-forbids", detail: "forbidden" }],
  });
  await world.configure({}, { inventory });
});
afterEach(async () => {
  expect(world.app.leaks(await world.storedTexts())).toEqual([]);
  await world.close();
});

async function finished(runId: string) {
  await world.drainRuns();
  return runOf(await world.get(runId));
}

describe("POST /api/renewals and a blocking preflight", () => {
  it("the run fails with the certificate blocked, its detail and a problem line; nothing sent for it", async () => {
    const { runId } = runOf(await world.post());
    const peeked = await world.queue.peekMessages({ numberOfMessages: 32 });
    expect(peeked.peekedMessageItems.map((m) => JSON.parse(m.messageText))).toEqual([
      { runId, dryRun: false },
    ]);

    const run = await finished(runId);

    expect(run).toMatchObject({ state: "failed", counts: { due: 1, blocked: 1 } });
    expect(run).not.toHaveProperty("force");
    expect(run.results).toEqual([
      expect.objectContaining({
        certificateName: BLOCKED,
        outcome: "blocked",
        reason: "PreflightBlocked",
        blockedBy: "caa-forbids",
        detail: `blocked (preflight: caa-forbids): ${PREFLIGHT_ADVICE["caa-forbids"]}`,
      }),
    ]);
    expect(run.problems).toEqual([
      `1 certificate(s) blocked by their last preflight, not renewed until a person fixes the cause (or renews with --force): ${BLOCKED}`,
    ]);
    expect(world.app.sim.renewCallsFor(BLOCKED)).toBe(0);
  });

  it("?force=true: the message and the run say force; the sweep renews it (forcedPast)", async () => {
    const accepted = runOf(await world.post({ query: { force: "true" } }));
    expect(accepted).toMatchObject({ state: "queued", force: true });
    const peeked = await world.queue.peekMessages({ numberOfMessages: 32 });
    expect(peeked.peekedMessageItems.map((m) => JSON.parse(m.messageText))).toEqual([
      { runId: accepted.runId, dryRun: false, force: true },
    ]);

    const run = await finished(accepted.runId);

    expect(run).toMatchObject({ state: "succeeded", force: true, forced: true });
    expect(run.results).toEqual([
      expect.objectContaining({
        certificateName: BLOCKED,
        outcome: "renewal-scheduled",
        forcedPast: "caa-forbids",
      }),
    ]);
    expect(world.app.sim.renewCallsFor(BLOCKED)).toBe(1);
  });

  it("an Idempotency-Key of an unforced run is refused for a forced one (422), and repeats its own", async () => {
    const headers = { "idempotency-key": "nightly-fix" };
    const { runId } = runOf(await world.post({ headers }));

    const forced = await world.post({ headers, query: { force: "true" } });
    const again = await world.post({ headers });

    expect(forced.status).toBe(422);
    expect(forced.body).toMatchObject({
      code: "IDEMPOTENCY_KEY_REUSED",
      detail: expect.stringContaining(
        `started run ${runId} for another request (dryRun or force differs)`,
      ),
    });
    expect(runOf(again).runId).toBe(runId);
    const peeked = await world.queue.peekMessages({ numberOfMessages: 32 });
    expect(peeked.peekedMessageItems).toHaveLength(1);
  });

  it("refuses force=1 with 400 naming force; nothing is queued", async () => {
    const reply = await world.post({ query: { force: "1" } });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ errors: [{ name: "force" }] });
    expect(await world.queue.exists()).toBe(false);
  });
});
