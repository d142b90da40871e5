import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import type { Ledger } from "../../../../shared/core/ports/ledger.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import type { Simulator } from "../../../../sim/index.js";
import { startSimulator } from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor, uniqueTableName } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";

/**
 * A renewal the service accepts but never completes, swept on a fake clock: the decision chain
 * against the real ledger (Azurite), the real HTTP client and the simulator.
 */
const T = new Date("2026-03-01T03:00:00.000Z");
const clock = fakeClock(T.toISOString());
const NAME = "never-renews-contoso-com";

let sim: Simulator;
let runtime: AccountPorts;
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
  const summary = await sweep(runtime, log);
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

/**
 * The timer fires daily, but each sweep reaches the certificate a little earlier or later than
 * the day before (the list's latency varies): a day a few seconds short is still a day.
 */
describe("daily sweeps that drift a few seconds early, a renewal that never completes", () => {
  const D0 = new Date("2026-04-01T03:00:07.000Z");
  const driftClock = fakeClock(D0.toISOString());
  const DRIFT_NAME = "drifting-contoso-com";
  const SECOND_MS = 1_000;
  let driftSim: Simulator;
  let driftRuntime: AccountPorts;
  const driftLogs: string[] = [];

  beforeAll(async () => {
    driftSim = await startSimulator({
      now: driftClock.now,
      completionDelayMs: 365 * DAY_MS,
      certificates: [
        { certificateName: DRIFT_NAME, expiryDate: new Date(D0.getTime() + 6 * DAY_MS) },
      ],
    });
    driftRuntime = runtimeFor(
      driftSim,
      {},
      {
        now: driftClock.now,
        ledger: tableLedger({
          connectionString: inject("azuriteTableConnectionString"),
          tableName: uniqueTableName("drift"),
        }),
      },
    );
  });
  afterAll(async () => {
    expect(leaksIn(driftSim, driftLogs)).toEqual([]);
    await driftRuntime.close();
    await driftSim.close();
  });

  async function dailySweep(at: number) {
    driftClock.set(new Date(D0.getTime() + at));
    const { log, lines } = collectingLogger();
    const summary = await sweep(driftRuntime, log);
    driftLogs.push(...lines.map((l) => l.message));
    const [result, ...others] = summary.results;
    expect(others).toEqual([]);
    return { summary, result, renewCalls: driftSim.renewCallsFor(DRIFT_NAME) };
  }

  // Sequential on purpose: each sweep builds on the ledger the previous one left.
  it("day 0: renewal requested", async () => {
    const { result, renewCalls } = await dailySweep(0);
    expect(result?.outcome).toBe("renewal-scheduled");
    expect(renewCalls).toBe(1);
  });

  it.each([
    // [day, sweep time after day 0, renew calls after it]
    [1, DAY_MS - 2 * SECOND_MS, 2],
    [2, 2 * DAY_MS - 5 * SECOND_MS, 3],
    [3, 3 * DAY_MS - 3 * SECOND_MS, 4],
  ])("day %i (a few seconds short): stuck, and requested again", async (_, at, calls) => {
    const { summary, result, renewCalls } = await dailySweep(at);
    expect(result).toMatchObject({
      outcome: "stuck",
      detail: expect.stringMatching(/after renewal was first requested.*; requesting again$/),
    });
    expect(renewCalls).toBe(calls);
    expect(summary.failed).toBe(true);
    expect(summary.problems).toEqual([`1 certificate(s) stuck: ${DRIFT_NAME}`]);
  });
});
