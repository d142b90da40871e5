import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../sim/index.js";
import { fakeClock } from "../support/clock.js";
import { post, publicUrl, tokenEndpoint, tokenForm, waitFor } from "../support/simulator.js";

const clock = fakeClock("2026-03-01T12:00:00Z");
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ now: clock.now, tokenLifetimeSeconds: 600 });
});
afterAll(() => sim.close());
beforeEach(() => sim.setClientSecret("sim-client-secret"));

interface AadErrorBody {
  error: string;
  error_description: string;
  error_codes: number[];
  trace_id: string;
  correlation_id: string;
  timestamp: string;
}

describe("token endpoint", () => {
  it("issues a token whose fields are all strings", async () => {
    const reply = await post(tokenEndpoint(sim), {
      form: tokenForm(sim, sim.options.managementResource),
    });

    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json/);
    const body = JSON.parse(reply.text) as Record<string, unknown>;
    const epoch = Math.floor(clock.now().getTime() / 1000);
    expect(body).toEqual({
      token_type: "Bearer",
      expires_in: "600",
      ext_expires_in: "600",
      expires_on: String(epoch + 600),
      not_before: String(epoch),
      resource: "https://management.core.windows.net/",
      access_token: expect.stringMatching(/^simtok-[0-9a-f]{48}$/),
    });
    expect(sim.issuedTokens()).toContain(body.access_token);
  });

  const errors: [string, () => [string, Record<string, string>], number, number, string][] = [
    [
      "a wrong secret",
      () => [tokenEndpoint(sim), { ...form(), client_secret: "nope" }],
      401,
      7000215,
      "invalid_client",
    ],
    [
      "an unknown client id",
      () => [tokenEndpoint(sim), { ...form(), client_id: "other" }],
      400,
      700016,
      "unauthorized_client",
    ],
    [
      "an unknown tenant",
      () => [tokenEndpoint(sim, "other-tenant"), form()],
      400,
      90002,
      "invalid_request",
    ],
    [
      "an unsupported grant type",
      () => [tokenEndpoint(sim), { ...form(), grant_type: "password" }],
      400,
      70003,
      "unsupported_grant_type",
    ],
    [
      "a missing resource",
      () => [tokenEndpoint(sim), without(form(), "resource")],
      400,
      900144,
      "invalid_request",
    ],
    [
      "a missing secret",
      () => [tokenEndpoint(sim), without(form(), "client_secret")],
      401,
      7000218,
      "invalid_client",
    ],
    [
      "an unknown resource",
      () => [tokenEndpoint(sim), { ...form(), resource: "https://graph.microsoft.com" }],
      400,
      500011,
      "invalid_resource",
    ],
  ];

  it.each(errors)("answers %s like Entra ID", async (_case, build, status, code, error) => {
    const [url, fields] = build();

    const reply = await post(url, { form: fields });

    expect(reply.status).toBe(status);
    const body = JSON.parse(reply.text) as AadErrorBody;
    expect(body.error).toBe(error);
    expect(body.error_codes).toEqual([code]);
    expect(body.error_description.startsWith(`AADSTS${code}: `)).toBe(true);
    expect(body.trace_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.correlation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.timestamp).toBe("2026-03-01 12:00:00Z");
  });

  it("reads nothing but a form body, so JSON looks like a missing grant_type", async () => {
    const reply = await post(tokenEndpoint(sim), { json: form() });

    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text).error_description).toMatch(/^AADSTS900144: .*'grant_type'/);
  });

  it("answers AADSTS7000222 once the secret has expired, until it is rotated", async () => {
    sim.expireClientSecret();
    const expired = await post(tokenEndpoint(sim), { form: form() });
    sim.setClientSecret("rotated-secret");
    const oldSecret = await post(tokenEndpoint(sim), { form: form("sim-client-secret") });
    const rotated = await post(tokenEndpoint(sim), { form: form("rotated-secret") });

    expect(expired.status).toBe(401);
    expect(JSON.parse(expired.text).error_codes).toEqual([7000222]);
    expect(JSON.parse(oldSecret.text).error_codes).toEqual([7000215]);
    expect(rotated.status).toBe(200);
    expect(sim.options.clientSecret).toBe("rotated-secret");
  });

  it("is never slowed down by service latency", async () => {
    // Service calls wait until close(): a token that arrives at all was not held back.
    const slow = await startSimulator({ latencyMs: Number.MAX_SAFE_INTEGER });
    try {
      const held = post(publicUrl(slow, "test"), { json: {} }).then(
        () => "answered",
        () => "failed",
      );
      await waitFor(() => slow.requestsFor("test").length === 1);

      const reply = await post(tokenEndpoint(slow), {
        form: tokenForm(slow, slow.options.vaultResource),
      });

      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toMatchObject({ access_token: expect.any(String) });
      // The service call before it is still waiting out the latency; close() ends it.
      await slow.close();
      expect(await held).toBe("failed");
    } finally {
      await slow.close();
    }
  });
});

function form(secret = sim.options.clientSecret): Record<string, string> {
  return { ...tokenForm(sim, sim.options.managementResource), client_secret: secret };
}

function without(fields: Record<string, string>, name: string): Record<string, string> {
  const copy = { ...fields };
  delete copy[name];
  return copy;
}
