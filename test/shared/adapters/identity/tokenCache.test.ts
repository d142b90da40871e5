import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clientCredentialsSource } from "../../../../shared/adapters/identity/clientCredentials.js";
import { EXPIRY_MARGIN_MS, TokenCache } from "../../../../shared/adapters/identity/tokenCache.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { TokenError } from "../../../../shared/lib/errors.js";
import { HttpClient } from "../../../../shared/lib/http/httpClient.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import type { Simulator } from "../../../../sim/index.js";
import {
  createInput,
  expectNoSecretLeaks,
  failure,
  runtimeFor,
  type Sandbox,
  startSandbox,
  textsOf,
  tokenResources,
  watchSecret,
} from "../../../support/simulatorServices.js";

const MANAGEMENT = "https://management.core.windows.net/";
const VAULT = "https://vault.azure.net";

let sandbox: Sandbox;
let sim: Simulator;
const runtimes: AccountPorts[] = [];

/** A runtime with an empty token cache, closed after the test. */
function freshRuntime(env: Record<string, string | undefined> = {}): AccountPorts {
  const runtime = runtimeFor(sim, env);
  runtimes.push(runtime);
  return runtime;
}

beforeAll(async () => {
  const soon = new Date(Date.now() + 5 * DAY_MS);
  sandbox = await startSandbox({
    sim: { certificates: [{ certificateName: "www-contoso-com", expiryDate: soon, id: 1 }] },
  });
  sim = sandbox.sim;
});
beforeEach(() => sim.reset());
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await sandbox.close();
  expectNoSecretLeaks();
});

describe("TokenCache in a runtime", () => {
  it("asks the identity provider once per resource across every operation", async () => {
    const runtime = freshRuntime();

    await runtime.client.test();
    await runtime.client.listDue();
    await runtime.client.renew("www-contoso-com");
    await runtime.client.create(createInput("keyVault"));
    await runtime.client.test();

    expect(tokenResources(sim).sort()).toEqual([MANAGEMENT, VAULT]);
    expect(runtime.tokens.requests).toBe(2);
  });

  it("shares one request among concurrent callers", async () => {
    const runtime = freshRuntime();

    const tokens = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runtime.tokens.token(i % 2 ? MANAGEMENT : VAULT)),
    );

    expect(new Set(tokens).size).toBe(2);
    expect(tokenResources(sim).sort()).toEqual([MANAGEMENT, VAULT]);
    expect(sim.issuedTokens()).toEqual(expect.arrayContaining([...new Set(tokens)]));
  });

  it("asks only for the management token for v3 renew and App Service create", async () => {
    const runtime = freshRuntime();

    await runtime.client.renew("www-contoso-com");
    await runtime.client.create(createInput("appServiceDns"));

    expect(tokenResources(sim)).toEqual([MANAGEMENT]);
  });

  it("sends the token request of spec 4.6", async () => {
    const runtime = freshRuntime();

    await runtime.tokens.token(VAULT);

    const [request] = sim.requestsFor("token");
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe(`/identity/${sim.options.tenantId}/oauth2/token`);
    expect(request?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({
      grant_type: "client_credentials",
      client_id: sim.options.clientId,
      client_secret: sim.options.clientSecret,
      resource: VAULT,
    });
  });

  it("costs exactly two token requests for a burst of 50 concurrent public renewals", async () => {
    const now = Date.now();
    const burst = await startSandbox({
      sim: {
        certificates: Array.from({ length: 50 }, (_, i) => ({
          certificateName: `burst-${i}`,
          expiryDate: new Date(now + ((i % 19) + 1) * DAY_MS),
          target: i % 2 ? ("Cloud Key Vault + DNS" as const) : ("Cloud App Service" as const),
        })),
      },
    });
    try {
      const refs = burst.sim.certificates();

      const answers = await Promise.all(refs.map((ref) => burst.runtime.client.renewListed(ref)));

      expect(answers).toEqual(
        refs.map((r) => `Certificate ${r.certificateName} is scheduled for renewal.`),
      );
      expect(burst.sim.requestsFor("publicRenew")).toHaveLength(50);
      expect(tokenResources(burst.sim).sort()).toEqual([MANAGEMENT, VAULT]);
      expect(burst.runtime.tokens.requests).toBe(2);
      expect(refs.map((r) => burst.sim.renewCallsFor(r.certificateName))).toEqual(
        refs.map(() => 1),
      );
    } finally {
      await burst.close();
    }
  });

  it("refreshes a token five minutes before expires_on, by the injected clock", async () => {
    let t = Math.floor(Date.now() / 1000) * 1000;
    const now = () => new Date(t);
    // The simulator and the runtime read the same fake clock, so expires_on is t + 3599 s.
    const clocked = await startSandbox({ sim: { now }, overrides: { now } });
    try {
      await clocked.runtime.client.test();
      const first = new Set(clocked.sim.issuedTokens());
      expect(first.size).toBe(2);

      t += 3_599_000 - EXPIRY_MARGIN_MS - 1;
      await clocked.runtime.client.test();
      expect(tokenResources(clocked.sim)).toHaveLength(2);

      t += 1;
      await clocked.runtime.client.test();
      expect(tokenResources(clocked.sim).sort()).toEqual([MANAGEMENT, MANAGEMENT, VAULT, VAULT]);
      const lastTest = clocked.sim.requestsFor("test").at(-1);
      const sent = JSON.parse(lastTest?.body ?? "{}") as Record<string, string>;
      expect(first.has(sent.accessToken ?? "")).toBe(false);
      expect(first.has(sent.accessTokenKeyVault ?? "")).toBe(false);
    } finally {
      await clocked.close();
    }
  });
});

describe("TokenCache over the client-credentials source", () => {
  let http: HttpClient;
  let secret: string;
  let t: number;

  function cache(): TokenCache {
    const source = clientCredentialsSource({
      tokenUrl: sim.tokenUrl,
      tenantId: sim.options.tenantId,
      clientId: sim.options.clientId,
      withClientSecret: (request) => request(secret),
      http,
    });
    return new TokenCache(source, { now: () => t });
  }

  beforeEach(() => {
    http = new HttpClient({ timeoutMs: 5_000 });
    secret = sim.options.clientSecret;
    t = Date.now();
  });
  afterEach(() => http.close());

  it("reads expires_on (a string) to decide when to refresh", async () => {
    const t0 = Math.floor(t / 1000);
    // expires_in says an hour, expires_on says ten minutes: expires_on decides.
    sim.inject("token", {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({
        token_type: "Bearer",
        expires_in: "3599",
        ext_expires_in: "3599",
        expires_on: String(t0 + 600),
        not_before: String(t0),
        resource: MANAGEMENT,
        access_token: "injected-token-ten-minutes",
      }),
    });
    const tokens = cache();

    expect(await tokens.token(MANAGEMENT)).toBe("injected-token-ten-minutes");
    t = t0 * 1000 + 600_000 - EXPIRY_MARGIN_MS - 1;
    expect(await tokens.token(MANAGEMENT)).toBe("injected-token-ten-minutes");
    expect(tokens.requests).toBe(1);

    t += 1;
    const fresh = await tokens.token(MANAGEMENT);

    expect(fresh).not.toBe("injected-token-ten-minutes");
    expect(sim.issuedTokens()).toContain(fresh);
    expect(tokens.requests).toBe(2);
    expect(sim.requestsFor("token")).toHaveLength(2);
  });

  it("does not cache a failure: the next caller asks again", async () => {
    secret = "not-the-client-secret-123";
    watchSecret(secret);
    const tokens = cache();

    const refused = await failure(tokens.token(MANAGEMENT));
    secret = sim.options.clientSecret;
    const token = await tokens.token(MANAGEMENT);

    expect(refused).toBeInstanceOf(TokenError);
    expect(sim.issuedTokens()).toContain(token);
    expect(tokens.requests).toBe(2);
  });

  it("fetches a new token after invalidate", async () => {
    const tokens = cache();
    const first = await tokens.token(VAULT);

    tokens.invalidate(VAULT);
    const second = await tokens.token(VAULT);

    expect(second).not.toBe(first);
    expect(tokenResources(sim)).toEqual([VAULT, VAULT]);
  });

  it("refuses a 200 without a usable token", async () => {
    sim.inject("token", {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token_type: "Bearer", expires_in: 3599, access_token: "x" }),
    });

    const error = await failure(cache().token(MANAGEMENT));

    expect(error).toBeInstanceOf(TokenError);
    expect(error).toMatchObject({ code: "TOKEN_UNAVAILABLE", status: 200, resource: MANAGEMENT });
    expect(error.message).toBe(
      `Identity provider answered 200 without a usable token for ${MANAGEMENT}`,
    );
  });

  it("retries a busy identity provider, then reports it unavailable with the page title", async () => {
    sim.inject("token", {
      status: 503,
      headers: { "content-type": "text/html", "retry-after": "0" },
      body: "<html><head><title>Service Unavailable</title></head><body>busy</body></html>",
      times: Number.POSITIVE_INFINITY,
    });

    const error = await failure(cache().token(MANAGEMENT));

    expect(error).toMatchObject({ code: "TOKEN_UNAVAILABLE", status: 503, retriable: true });
    expect(error.message).toBe(
      `Identity provider answered 503 for ${MANAGEMENT}: HTML page "Service Unavailable"`,
    );
    expect(sim.requestsFor("token")).toHaveLength(4);
  });
});

describe("identity-provider refusals become TokenError naming the AADSTS code", () => {
  const wrongSecret = `wrong-"secret"<>&%2F-${"z".repeat(16)}`;

  afterEach(() => {
    // Un-expires the secret (same value) for the next test.
    sim.setClientSecret(sim.options.clientSecret);
  });

  it.each<[string, () => Record<string, string>, number, number, RegExp]>([
    [
      "an expired client secret",
      () => {
        sim.expireClientSecret();
        return {};
      },
      7000222,
      401,
      /AADSTS7000222 \(the client secret has expired: create a new one and update CERTSCHED_CLIENT_SECRET/,
    ],
    [
      "a wrong client secret",
      () => ({ CERTSCHED_CLIENT_SECRET: wrongSecret }),
      7000215,
      401,
      /AADSTS7000215 \(invalid client secret: check CERTSCHED_CLIENT_SECRET/,
    ],
    [
      "an unknown client",
      () => ({ CERTSCHED_CLIENT_ID: "someone-else" }),
      700016,
      400,
      /AADSTS700016 \(unknown application: check CERTSCHED_CLIENT_ID/,
    ],
    [
      "an unknown tenant",
      () => ({ CERTSCHED_TENANT_ID: "other-tenant" }),
      90002,
      400,
      /AADSTS90002 \(unknown tenant: check CERTSCHED_TENANT_ID\)/,
    ],
    [
      "an unknown resource",
      () => ({ CERTSCHED_VAULT_RESOURCE: "https://vault.example.net" }),
      500011,
      400,
      /AADSTS500011 \(unknown resource/,
    ],
  ])("%s", async (_, setUp, aadsts, status, meaning) => {
    watchSecret(wrongSecret);
    const runtime = freshRuntime(setUp());

    const error = await failure(runtime.client.test());

    expect(error).toBeInstanceOf(TokenError);
    expect(error).toMatchObject({ code: "TOKEN_REFUSED", aadsts, status, retriable: false });
    expect(error.message).toMatch(/^Identity provider refused a token for https:\/\/\S+: /);
    expect(error.message).toMatch(meaning);
    // Refusals are answers: not retried, and no service call goes out without a token.
    const perResource = tokenResources(sim);
    expect(perResource.length).toBe(new Set(perResource).size);
    expect(sim.requestsFor("test")).toHaveLength(0);
    for (const text of textsOf(error)) {
      expect(text).not.toContain(wrongSecret);
      expect(text).not.toContain(sim.options.clientSecret);
    }
  });
});

describe("secrets", () => {
  it("appear in none of the errors this file provoked", () => {
    expectNoSecretLeaks(5);
  });
});
