import { errors } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DAY_MS } from "../../shared/lib/time.js";
import { type Simulator, startSimulator } from "../../sim/index.js";
import {
  post,
  publicUrl,
  tokenEndpoint,
  tokenForm,
  tokens,
  waitFor,
} from "../support/simulator.js";

let sim: Simulator;
let resourceRequest: { accessToken: string; accessTokenKeyVault: string };

beforeAll(async () => {
  sim = await startSimulator({
    certificates: [{ certificateName: "due", expiryDate: new Date(Date.now() + DAY_MS), id: 1 }],
  });
  const tok = await tokens(sim);
  resourceRequest = { accessToken: tok.management, accessTokenKeyVault: tok.vault };
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

const test = () => post(publicUrl(sim, "test"), { json: resourceRequest });
const renew = () =>
  post(publicUrl(sim, "renew"), {
    json: { ...resourceRequest, certificate: { certificateName: "due", id: 1 } },
  });

describe("fault injection", () => {
  it("answers with the fault's status and body instead of the handler, state untouched", async () => {
    sim.inject("publicRenew", {
      status: 503,
      body: "Service Unavailable",
      headers: { "retry-after": "2" },
    });
    const renewalsBefore = sim.renewCallsFor("due");

    const faulted = await renew();
    const next = await renew();

    expect(faulted).toEqual({
      status: 503,
      contentType: "text/plain; charset=utf-8",
      text: "Service Unavailable",
    });
    expect(next.status).toBe(200);
    expect(sim.renewCallsFor("due")).toBe(renewalsBefore + 1);
  });

  it("applies onCall faults to exactly that call, counted from simulator start", async () => {
    const fresh = await startSimulator();
    try {
      const tok = await tokens(fresh);
      const body = { accessToken: tok.management, accessTokenKeyVault: tok.vault };
      const call = async () => (await post(publicUrl(fresh, "test"), { json: body })).status;
      await call();
      fresh.reset();
      fresh.inject("test", { status: 500, onCall: 3 });

      const statuses = [await call(), await call(), await call()];

      expect(statuses).toEqual([200, 500, 200]);
    } finally {
      await fresh.close();
    }
  });

  it("applies a fault `times` times, then lets calls through", async () => {
    sim.inject("test", { status: 429, times: 2 });

    const statuses = [(await test()).status, (await test()).status, (await test()).status];

    expect(statuses).toEqual([429, 429, 200]);
  });

  it("resets the connection without a response", async () => {
    sim.inject("test", { reset: true });

    await expect(test()).rejects.toBeInstanceOf(errors.SocketError);
    expect(sim.requestsFor("test")).toHaveLength(1);
  });

  it("delays, then runs the real handler", async () => {
    sim.inject("publicRenew", { delayMs: 500 });
    const renewalsBefore = sim.renewCallsFor("due");
    const settled: string[] = [];
    const delayed = renew().then((reply) => {
      settled.push("delayed");
      return reply;
    });
    await waitFor(() => sim.requestsFor("publicRenew").length === 1);

    // Asked after the delayed call, answered before it: and the delayed one has not run yet.
    expect((await test()).status).toBe(200);
    settled.push("undelayed");
    expect(sim.renewCallsFor("due")).toBe(renewalsBefore);
    const reply = await delayed;

    expect(settled).toEqual(["undelayed", "delayed"]);
    expect(reply.status).toBe(200);
    expect(sim.renewCallsFor("due")).toBe(renewalsBefore + 1);
  });

  it("faults the token endpoint too", async () => {
    sim.inject("token", {
      status: 500,
      body: "{}",
      headers: { "content-type": "application/json" },
    });

    const reply = await post(tokenEndpoint(sim), {
      form: tokenForm(sim, sim.options.vaultResource),
    });

    expect(reply).toMatchObject({ status: 500, contentType: "application/json", text: "{}" });
  });

  it("fails a seeded, reproducible share of service calls and never token calls", async () => {
    const run = async () => {
      sim.setRandomFaults({ rate: 0.3, seed: 42, faults: [{ status: 500 }, { status: 502 }] });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await test()).status);
      const token = await post(tokenEndpoint(sim), {
        form: tokenForm(sim, sim.options.vaultResource),
      });
      sim.setRandomFaults(undefined);
      return { statuses, tokenStatus: token.status };
    };

    const first = await run();
    const second = await run();

    expect(second).toEqual(first);
    expect(first.tokenStatus).toBe(200);
    const failed = first.statuses.filter((s) => s !== 200);
    expect(failed.length).toBeGreaterThan(4);
    expect(failed.length).toBeLessThan(24);
    expect(new Set(failed)).toEqual(new Set([500, 502]));
  });
});
