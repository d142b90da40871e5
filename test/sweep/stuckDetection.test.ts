import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sweepWith } from "../../shared/api/scheduleSweep.js";
import type { Ledger } from "../../shared/ledger/ledger.js";
import { tableLedger } from "../../shared/ledger/tableLedger.js";
import type { Runtime } from "../../shared/runtime.js";
import type { Simulator } from "../../sim/index.js";
import { startSimulator } from "../../sim/index.js";
import {
  collectingLogger,
  DAY_MS,
  fakeClock,
  HOUR_MS,
  leaksIn,
  runtimeFor,
  uniqueTableName,
} from "../functions/harness.js";

/**
 * A renewal the service accepts but never completes, swept on a fake clock: the decision chain
 * against the real ledger (Azurite), the real HTTP client and the simulator.
 */
const T = new Date("2026-03-01T03:00:00.000Z");
const clock = fakeClock(T.toISOString());
const NAME = "never-renews-contoso-com";

let sim: Simulator;
let runtime: Runtime;
let ledger: Ledger;
const logs: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({
    now: clock.now,
    // The service accepts the renewal but it would complete in a year: the certificate stays due.
    completionDelayMs: 365 * DAY_MS,
    certificates: [{ certificateName: NAME, expiryDate: new Date(T.getTime() + 6 * DAY_MS) }],
  });
  ledger = tableLedger({
    connectionString: inject("azuriteTableConnectionString"),
    tableName: uniqueTableName("stuck"),
  });
  runtime = runtimeFor(sim, {}, { now: clock.now, ledger });
});
afterAll(async () => {
  expect(leaksIn(sim, logs)).toEqual([]);
  await runtime.close();
  await sim.close();
});

async function sweepAt(hoursAfterT: number) {
  clock.set(new Date(T.getTime() + hoursAfterT * HOUR_MS));
  const { log, lines } = collectingLogger();
  const summary = await sweepWith(runtime, log);
  logs.push(...lines.map((l) => l.message));
  const [result, ...others] = summary.results;
  expect(others).toEqual([]);
  return { summary, result, renewCalls: sim.renewCallsFor(NAME) };
}

describe("a renewal that never completes", () => {
  // Sequential on purpose: each sweep builds on the ledger the previous one left.
  it("T: renewal requested", async () => {
    const { summary, result, renewCalls } = await sweepAt(0);
    expect(result?.outcome).toBe("renewal-scheduled");
    expect(renewCalls).toBe(1);
    expect(summary.failed).toBe(false);
  });

  it("T+1h: skipped, within the 2 h grace", async () => {
    const { summary, result, renewCalls } = await sweepAt(1);
    expect(result).toMatchObject({
      outcome: "skipped",
      detail: expect.stringMatching(/1\.0 h ago/),
    });
    expect(renewCalls).toBe(1);
    expect(summary.failed).toBe(false);
  });

  it("T+3h: requested again, the grace has elapsed", async () => {
    const { result, renewCalls } = await sweepAt(3);
    expect(result?.outcome).toBe("renewal-scheduled");
    expect(renewCalls).toBe(2);
  });

  it("T+25h: stuck, and requested again", async () => {
    const { summary, result, renewCalls } = await sweepAt(25);
    expect(result).toMatchObject({
      outcome: "stuck",
      detail: expect.stringMatching(/still due 25\.0 h after renewal was first requested/),
    });
    expect(renewCalls).toBe(3);
    expect(summary.failed).toBe(true);
    expect(summary.problems).toEqual(["1 certificate(s) stuck: never-renews-contoso-com"]);
  });

  it("T+26h: still stuck, not requested again (at most once a day)", async () => {
    const { summary, result, renewCalls } = await sweepAt(26);
    expect(result).toMatchObject({
      outcome: "stuck",
      detail: expect.stringMatching(/requested again within the last day/),
    });
    expect(renewCalls).toBe(3);
    expect(summary.failed).toBe(true);
  });

  it("T+48h: still stuck, not yet a day since the last request", async () => {
    const { result, renewCalls } = await sweepAt(48);
    expect(result?.outcome).toBe("stuck");
    expect(renewCalls).toBe(3);
  });

  it("T+49h: stuck, and requested again a day after the last request", async () => {
    const { result, renewCalls } = await sweepAt(49);
    expect(result).toMatchObject({
      outcome: "stuck",
      detail: expect.stringMatching(/requesting again/),
    });
    expect(renewCalls).toBe(4);
  });

  it("the ledger kept the episode: first request at T, four attempts", async () => {
    // Tokens expire on the fake clock too: the app fetched fresh ones along the way.
    expect(sim.requestsFor("token").length).toBeGreaterThan(2);
    const [cert] = sim.certificates();
    const entry = await ledger.read(cert?.id ?? -1);
    expect(entry?.record).toMatchObject({
      certificateName: NAME,
      firstRequestedAt: T,
      lastRequestedAt: new Date(T.getTime() + 49 * HOUR_MS),
      attempts: 4,
      outcome: "stuck",
    });
  });
});
