import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { CLAIM_LEASE_MS } from "../../shared/core/renewal/decide.js";
import type { RunView } from "../../shared/edge/views/runView.js";
import { startWorker, type Worker } from "../support/hostWorkerProcess.js";
import { type FanOutWorld, inDays, runOf, startFanOutWorld } from "../support/runs.js";

/*
 * kill -9 of a worker mid-batch: a child process runs the host loop over the Azurite run queue with
 * the real queue trigger, is killed with SIGKILL while its batch is renewing, and a fresh worker
 * takes over once the killed one's leases run out. Nothing is lost and nothing renewed twice:
 * counted on each account's simulator.
 */

const ACCOUNTS = 6;
const DUE = ["www", "api", "shop", "mail"].map((n) => `${n}-contoso-com`);
const LEASE_SECONDS = 3;
/**
 * A renewal the killed worker sent without recording the answer is not asked again within the
 * grace (the service may have scheduled it): short here, so the next run, after it, finishes.
 */
const GRACE_SECONDS = 12;

let world: FanOutWorld | undefined;
const workers: Worker[] = [];

afterEach(async () => {
  const texts = workers.flatMap((w) => [...w.logs.map((l) => l.message), ...w.stderr]);
  expect(texts.length).toBeGreaterThan(0);
  for (const worker of workers.splice(0)) await worker.kill();
  if (!world) return;
  expect(await world.leaks()).toEqual([]);
  expect(world.accounts.secrets().filter((s) => texts.some((t) => t.includes(s)))).toEqual([]);
  await world.close();
  world = undefined;
});

const renewed = (w: FanOutWorld) =>
  w.accounts.accounts.reduce(
    (sum, { sim }) => sum + DUE.reduce((n, name) => n + sim.renewCallsFor(name), 0),
    0,
  );

async function until(what: string, ms: number, check: () => Promise<boolean> | boolean) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

it("a worker killed mid-batch: another finishes the run; every certificate renewed exactly once", async () => {
  world = await startFanOutWorld(
    ACCOUNTS,
    () => [
      ...DUE.map((certificateName) => ({ certificateName, expiryDate: inDays(5) })),
      { certificateName: "blog-contoso-com", expiryDate: inDays(45) },
    ],
    // Slow enough that a batch is mid-renewal when the worker dies; a renewal completes at once.
    () => ({ latencyMs: 150, completionDelayMs: 0 }),
  );
  const w = world;
  const settings = {
    env: {
      CERTSCHED_ACCOUNTS: JSON.stringify(w.accounts.declarations()),
      AzureWebJobsStorage: w.connectionString,
      CERTSCHED_RENEWAL_CONCURRENCY: "2",
      CERTSCHED_RENEWAL_GRACE: `${GRACE_SECONDS}s`,
    },
    connectionString: w.connectionString,
    queueName: w.queueName,
    runsTableName: w.runsTableName,
    leaseSeconds: LEASE_SECONDS,
  };
  const run = runOf(await w.post());

  const first = await startWorker(settings);
  workers.push(first);
  // Mid-batch: some renewals reached a service, far from all.
  await until("the first renewals", 30_000, () => renewed(w) >= 2);
  await first.kill();
  const killedAt = Date.now();
  const atKill = renewed(w);
  expect(atKill).toBeLessThan(ACCOUNTS * DUE.length);
  expect(first.started.length).toBeGreaterThan(0);
  const midway = runOf(await w.get(run.runId));
  expect(midway.state).not.toMatch(/succeeded|failed/);

  const second = await startWorker(settings);
  workers.push(second);
  let view: RunView = midway;
  await until("the run to finish", 90_000, async () => {
    view = runOf(await w.get(run.runId));
    return view.state === "succeeded" || view.state === "failed";
  });

  // Within the grace nothing was asked twice; what the killed worker sent without an answer
  // is reported as such (asked again after the grace), never dropped silently.
  const unanswered = new Set<string>();
  for (const part of view.parts ?? []) {
    expect(part.state).toBe("succeeded");
    const own = runOf(await w.get(part.runId));
    for (const result of own.results ?? []) {
      if (result.outcome === "renewal-scheduled") continue;
      expect(result).toMatchObject({ outcome: "skipped" });
      expect(["AnswerUnknown", "ClaimHeld"]).toContain(result.reason);
      unanswered.add(`${part.account}/${result.certificateName}`);
    }
  }
  for (const { name, sim } of w.accounts.accounts) {
    for (const certificate of DUE) expect(sim.renewCallsFor(certificate)).toBeLessThanOrEqual(1);
    const unreported = DUE.filter(
      (c) => sim.renewCallsFor(c) === 0 && !unanswered.has(`${name}/${c}`),
    );
    expect(unreported, name).toEqual([]);
  }
  expect(view.parts).toHaveLength(ACCOUNTS);
  // The parts the killed worker held were delivered again (their lease ran out).
  expect(view.parts?.some((p) => p.attempts >= 2)).toBe(true);
  expect(view.state).toBe("succeeded");

  // After the grace (a renewal sent unanswered) and the claim lease (claimed, not yet sent),
  // the next run asks again what never reached a service, and only that.
  const after = Math.max(GRACE_SECONDS * 1000, CLAIM_LEASE_MS) + 500;
  await sleep(Math.max(0, killedAt + after - Date.now()));
  const next = runOf(await w.post());
  await until("the next run to finish", 90_000, async () => {
    view = runOf(await w.get(next.runId));
    return view.state === "succeeded" || view.state === "failed";
  });
  expect(view.state).toBe("succeeded");
  // Nothing renewed twice, nothing lost: each due certificate of each account exactly once.
  for (const { name, sim } of w.accounts.accounts) {
    for (const certificate of DUE) {
      expect(sim.renewCallsFor(certificate), `${name} ${certificate}`).toBe(1);
    }
    expect(sim.renewCallsFor("blog-contoso-com")).toBe(0);
  }
}, 240_000);
