import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type Simulator,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../../sim/index.js";
import { apiKeyHeader, DAY_MS, post, publicUrl, tokens } from "./helpers.js";

let sim: Simulator;
let resourceRequest: { accessToken: string; accessTokenKeyVault: string };

beforeAll(async () => {
  sim = await startSimulator();
  const tok = await tokens(sim);
  resourceRequest = { accessToken: tok.management, accessTokenKeyVault: tok.vault };
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

describe("routing", () => {
  it("answers 404 to an unknown path and 405 to a wrong method", async () => {
    const unknown = await post(`${sim.baseUrl}/prod/v3/ssl/certificate/nothing`, { json: {} });
    const wrongMethod = await post(publicUrl(sim, "test"), { method: "GET" });

    expect(unknown).toMatchObject({ status: 404, text: "Not found" });
    expect(wrongMethod.status).toBe(405);
  });

  it("decodes each segment after splitting, so an encoded '/' never routes elsewhere", async () => {
    const v3 = `${sim.baseUrl}/prod/v3/ssl/certificate/subscription`;
    const smuggled = await post(`${v3}/sim-subscription%2Fschedule%2Fcreate`, {
      json: {},
      headers: apiKeyHeader(sim),
    });
    const slashInValue = await post(`${v3}/sim%2Fsubscription/schedule/renew`, {
      json: {},
      headers: apiKeyHeader(sim),
    });
    const encodedButEqual = await post(publicUrl(sim, "test").replace("/1001/", "/%31001/"), {
      json: resourceRequest,
    });

    expect(smuggled.status).toBe(404);
    expect(slashInValue).toMatchObject({ status: 401, text: "Unauthorized: unknown subscription" });
    expect(encodedButEqual.status).toBe(200);
  });
});

describe("request recording", () => {
  it("records every request before handling, faulted and unknown ones included", async () => {
    sim.inject("test", { status: 500 });

    await post(`${publicUrl(sim, "test")}?trace=1`, {
      json: resourceRequest,
      headers: { "x-probe": "a" },
    });
    await post(`${sim.baseUrl}/elsewhere`, { body: "hello" });

    expect(sim.requests.map((r) => r.operation)).toEqual(["test", "unknown"]);
    const [recorded] = sim.requestsFor("test");
    expect(recorded).toMatchObject({
      method: "POST",
      path: "/public/v1/subscription/1001/public/certificate/test",
      query: "trace=1",
      body: JSON.stringify(resourceRequest),
    });
    expect(recorded?.headers["x-probe"]).toBe("a");
    expect(recorded?.at).toBeInstanceOf(Date);
  });
});

describe("scale", () => {
  it("lists 10,000 due certificates quickly", async () => {
    const big = await startSimulator();
    try {
      const due = new Date(Date.now() + DAY_MS);
      for (let i = 0; i < 10_000; i++)
        big.addCertificate({ certificateName: `c${i}`, expiryDate: due });
      const tok = await tokens(big);
      const started = Date.now();

      const reply = await post(publicUrl(big, "renew/getlist"), {
        json: { accessToken: tok.management, accessTokenKeyVault: tok.vault },
      });

      expect(JSON.parse(reply.text)).toHaveLength(10_000);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await big.close();
    }
  });

  it("serves 1,000 concurrent calls, each delayed by the latency", async () => {
    const slow = await startSimulator({ latencyMs: 100 });
    try {
      const tok = await tokens(slow);
      const body = { accessToken: tok.management, accessTokenKeyVault: tok.vault };
      const started = Date.now();

      const replies = await Promise.all(
        Array.from({ length: 1000 }, () => post(publicUrl(slow, "test"), { json: body })),
      );

      expect(replies.every((r) => r.status === 200)).toBe(true);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(100);
      expect(elapsed).toBeLessThan(5000);
    } finally {
      await slow.close();
    }
  });

  it("closes promptly while a response hangs", async () => {
    const hanging = await startSimulator();
    hanging.inject("test", { delayMs: Number.POSITIVE_INFINITY });
    const pending = post(publicUrl(hanging, "test"), { json: {} }).catch((error: unknown) => error);
    await waitFor(() => hanging.requests.length === 1);
    const started = Date.now();

    await hanging.close();

    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe("sandbox", () => {
  it("seeds a mix of due and later certificates, one of them refused", async () => {
    const now = new Date("2026-01-15T00:00:00Z");
    const seeds = sampleCertificates(now);
    const dueBy = now.getTime() + 20 * DAY_MS;

    expect(seeds.length).toBeGreaterThanOrEqual(12);
    expect(new Set(seeds.map((s) => s.target))).toEqual(
      new Set(["Cloud App Service", "Cloud Key Vault + DNS"]),
    );
    expect(new Set(seeds.map((s) => s.challengeType))).toEqual(new Set(["http", "dns"]));
    expect(seeds.some((s) => s.expiryDate.getTime() === now.getTime() - DAY_MS)).toBe(true);
    expect(seeds.filter((s) => s.expiryDate.getTime() < dueBy).length).toBeGreaterThan(2);
    expect(seeds.filter((s) => s.expiryDate.getTime() >= dueBy).length).toBeGreaterThan(2);
    expect(seeds.filter((s) => s.refuseRenewal)).toHaveLength(1);
  });

  it("prints settings that point at the simulator", () => {
    expect(sandboxSettings(sim)).toEqual({
      CERTSCHED_BASE_URL: sim.baseUrl,
      CERTSCHED_SUBSCRIPTION: "sim-subscription",
      CERTSCHED_SUBSCRIPTION_ID: "1001",
      CERTSCHED_TENANT_ID: "sim-tenant",
      CERTSCHED_CLIENT_ID: "sim-client",
      CERTSCHED_CLIENT_SECRET: "sim-client-secret",
      CERTSCHED_API_KEY: "sim-api-key",
      CERTSCHED_TOKEN_URL: `${sim.baseUrl}/identity`,
    });
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
