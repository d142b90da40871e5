import { TableClient } from "@azure/data-tables";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import {
  invertedTime,
  REQUEST_PARTITION,
} from "../../../../shared/adapters/storage/rows/historyRow.js";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { type History, memoryHistory } from "../../../../shared/core/ports/history.js";
import { type Simulator, startSimulator } from "../../../../sim/index.js";
import { closedPort, uniqueTableName } from "../../../support/app.js";
import { runtimeFor } from "../../../support/simulatorServices.js";

/**
 * What counts as a request to the service: each attempt that may have reached it (retries
 * included), never a token request, never an attempt that could not connect; under the trigger
 * of the work that sent it. And the request rows in Table storage: validated, counted
 * conservatively, removed by the retention cleanup.
 */

let sim: Simulator;
const runtimes: AccountPorts[] = [];

beforeAll(async () => {
  sim = await startSimulator({
    certificates: [
      { certificateName: "a-soon", expiryDate: new Date(Date.now() + 2 * 86_400_000) },
    ],
  });
});
afterEach(async () => {
  sim.clearFaults();
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});
afterAll(() => sim.close());

function runtimeWith(history: History, env: Record<string, string> = {}): AccountPorts {
  const runtime = runtimeFor(sim, env, { history });
  runtimes.push(runtime);
  return runtime;
}

const EPOCH = new Date(0);

describe("each attempt on the wire, once", () => {
  it("a retried call counts each attempt; the token requests do not count", async () => {
    const history = memoryHistory();
    const runtime = runtimeWith(history);
    sim.reset();
    sim.inject("test", { status: 503, times: 2 });

    await runtime.client.test();
    await runtime.requests.settled();

    expect(sim.requestsFor("test")).toHaveLength(3);
    expect(sim.requestsFor("token").length).toBeGreaterThan(0);
    expect(await history.requestsSince(EPOCH)).toBe(3);
  });

  it("an attempt that could not connect never reached the service: not counted", async () => {
    const history = memoryHistory();
    const runtime = runtimeWith(history, {
      CERTSCHED_PUBLIC_BASE_URL: `http://127.0.0.1:${await closedPort()}/public`,
    });

    await expect(runtime.client.test()).rejects.toMatchObject({ code: "UPSTREAM_UNREACHABLE" });
    await runtime.requests.settled();

    expect(await history.requestsSince(EPOCH)).toBe(0);
  });

  it("an attempt cut short while waiting for the answer was sent: counted", async () => {
    const history = memoryHistory();
    const runtime = runtimeWith(history, { CERTSCHED_SCHEDULE_TIMEOUT: "200ms" });
    sim.reset();
    sim.inject("renew", { delayMs: 5_000 });

    await expect(runtime.client.renew("a-soon")).rejects.toMatchObject({
      code: "UPSTREAM_TIMEOUT",
    });
    await runtime.requests.settled();

    expect(sim.requestsFor("renew")).toHaveLength(1);
    expect(await history.requestsSince(EPOCH)).toBe(1);
  });

  it("carries the trigger of the request's context, else the runtime's default", async () => {
    const history = memoryHistory();
    const runtime = runtimeWith(history);
    const seen: string[] = [];
    const recordRequests = history.recordRequests.bind(history);
    history.recordRequests = async (requests) => {
      seen.push(...requests.map((r) => `${r.trigger} ${r.operation}`));
      await recordRequests(requests);
    };

    await runtime.client.listDue({ context: { purpose: "renewal", trigger: "queue" } });
    await runtime.client.get("a-soon");
    await runtime.client.get("a-soon", { context: { purpose: "read" } });
    await runtime.requests.settled();

    expect(seen).toEqual(["queue list", "http get", "http get"]);
  });
});

describe("request rows in Table storage", () => {
  const connectionString = () => inject("azuriteTableConnectionString");

  it("counts a row that fails validation (its key places it in the window), and the cleanup removes rows", async () => {
    const tableName = uniqueTableName("requests");
    const history = tableHistory({ connectionString: connectionString(), tableName });
    const at = new Date(Date.UTC(2026, 5, 1, 12));
    await history.recordRequests([
      { at, operation: "list", trigger: "timer" },
      { at, operation: "renew", trigger: "timer" },
    ]);
    const raw = TableClient.fromConnectionString(connectionString(), tableName, {
      allowInsecureConnection: true,
    });
    // Written by hand: a trigger certsched does not know, at the same instant.
    await raw.createEntity({
      partitionKey: REQUEST_PARTITION,
      rowKey: `${invertedTime(at)}-by-hand`,
      kind: "request",
      at: at.toISOString(),
      operation: "list",
      trigger: "cron",
    });

    expect(await history.requestsSince(at)).toBe(3);
    expect(await history.requestsSince(new Date(at.getTime() + 1))).toBe(0);
    // The events and runs of the history are not requests.
    expect((await history.events({ since: EPOCH })).items).toEqual([]);

    // A request row goes once both its key and the storage's Timestamp (the budget's clock,
    // the quota's window) are past the cutoff: these were stored just now, whatever their keys say.
    expect(await history.removeBefore(new Date(Math.max(at.getTime(), Date.now()) + 60_000))).toBe(
      3,
    );
    expect(await history.requestsSince(EPOCH)).toBe(0);
  });

  it("no table yet: nothing counted", async () => {
    const history = tableHistory({
      connectionString: connectionString(),
      tableName: uniqueTableName("none"),
    });
    expect(await history.requestsSince(EPOCH)).toBe(0);
  });

  it("the in-memory history's cleanup removes and counts request rows too", async () => {
    const history = memoryHistory();
    const at = new Date(Date.UTC(2026, 5, 1));
    await history.recordRequests([{ at, operation: "test", trigger: "cli" }]);
    expect(await history.removeBefore(new Date(at.getTime()))).toBe(0);
    expect(await history.removeBefore(new Date(at.getTime() + 1))).toBe(1);
    expect(await history.requestsSince(EPOCH)).toBe(0);
  });
});
