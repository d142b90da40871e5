import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DAY_MS } from "../../shared/lib/time.js";
import {
  type Simulator,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../../sim/index.js";
import { apiKeyHeader, post, publicUrl, tokens, waitFor } from "../support/simulator.js";

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
  it("lists 10,000 due certificates, every one of them", async () => {
    const big = await startSimulator();
    try {
      const due = new Date(Date.now() + DAY_MS);
      for (let i = 0; i < 10_000; i++)
        big.addCertificate({ certificateName: `c${i}`, expiryDate: due });
      const tok = await tokens(big);

      const reply = await post(publicUrl(big, "renew/getlist"), {
        json: { accessToken: tok.management, accessTokenKeyVault: tok.vault },
      });

      expect(reply.status).toBe(200);
      const names = (JSON.parse(reply.text) as { certificateName: string }[]).map(
        (c) => c.certificateName,
      );
      expect(new Set(names)).toEqual(new Set(Array.from({ length: 10_000 }, (_, i) => `c${i}`)));
    } finally {
      await big.close();
    }
  });

  it("serves 1,000 concurrent calls, each held back by the latency", async () => {
    const slow = await startSimulator({ latencyMs: 1000 });
    const fast = await startSimulator();
    try {
      const tok = await tokens(slow);
      const body = { accessToken: tok.management, accessTokenKeyVault: tok.vault };
      const fastTok = await tokens(fast);
      const settled: string[] = [];
      let arrivedBeforeFirstReply: number | undefined;

      const replies = Array.from({ length: 1000 }, () =>
        post(publicUrl(slow, "test"), { json: body }).then((reply) => {
          arrivedBeforeFirstReply ??= slow.requestsFor("test").length;
          settled.push("slow");
          return reply;
        }),
      );
      // Asked after all of them, answered before any: the latency holds each slow one back.
      const undelayed = post(publicUrl(fast, "test"), {
        json: { accessToken: fastTok.management, accessTokenKeyVault: fastTok.vault },
      }).then((reply) => {
        settled.push("fast");
        return reply;
      });

      expect((await undelayed).status).toBe(200);
      expect((await Promise.all(replies)).every((r) => r.status === 200)).toBe(true);
      expect(settled[0]).toBe("fast");
      // Served side by side, not one after another: all had arrived when the first was answered.
      expect(arrivedBeforeFirstReply).toBe(1000);
    } finally {
      await slow.close();
      await fast.close();
    }
  });

  it("closes while a response hangs, failing the hung call", async () => {
    const hanging = await startSimulator();
    // Held until close(): if close() waited for it, this test would never end.
    hanging.inject("test", { delayMs: Number.POSITIVE_INFINITY });
    const pending = post(publicUrl(hanging, "test"), { json: {} }).catch((error: unknown) => error);
    await waitFor(() => hanging.requests.length === 1);

    await hanging.close();

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

describe("a request cut before its last byte", () => {
  /** Writes the request by hand: the headers promise the whole body; `cut` bytes are held back. */
  async function rawPost(url: string, body: string, cut: number): Promise<string> {
    const { connect } = await import("node:net");
    const target = new URL(url);
    const bytes = Buffer.from(body);
    const socket = connect(Number(target.port), target.hostname);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(
      `POST ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\ncontent-length: ${bytes.length}\r\n\r\n`,
    );
    socket.write(bytes.subarray(0, bytes.length - cut));
    if (cut > 0) {
      // The process holding it dies: the connection ends with the body short.
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      return "";
    }
    const answer = await new Promise<Buffer>((resolve) => socket.once("data", resolve));
    socket.destroy();
    return answer.toString();
  }

  it("is never acted on, and is logged apart with what arrived; the same request whole is", async () => {
    const cert = sim.addCertificate({
      certificateName: "cut-short",
      expiryDate: new Date(Date.now() + 3 * DAY_MS),
    });
    const name = cert.certificateName;
    const body = JSON.stringify({
      ...resourceRequest,
      certificate: {
        certificateName: name,
        target: cert.target,
        renewal: cert.renewal,
        id: cert.id,
        subscriptionId: cert.subscriptionId,
      },
    });
    const before = sim.renewCallsFor(name);

    await rawPost(publicUrl(sim, "renew"), body, 1);
    await waitFor(() => sim.cutRequests.length > 0);

    expect(sim.renewCallsFor(name)).toBe(before);
    expect(sim.requestsFor("publicRenew")).toEqual([]);
    expect(sim.cutRequests).toMatchObject([{ operation: "publicRenew", body: body.slice(0, -1) }]);

    const answer = await rawPost(publicUrl(sim, "renew"), body, 0);
    expect(answer).toMatch(/^HTTP\/1.1 200 /);
    expect(sim.renewCallsFor(name)).toBe(before + 1);
    expect(sim.requestsFor("publicRenew")).toHaveLength(1);
  });
});
