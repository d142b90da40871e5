import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { clientCredentialsSource } from "../../../../shared/adapters/identity/clientCredentials.js";
import {
  EXPIRY_MARGIN_MS,
  MAX_TOKEN_LIFETIME_MS,
  SWEEP_SPAN_MS,
  TokenCache,
} from "../../../../shared/adapters/identity/tokenCache.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { TokenError } from "../../../../shared/lib/errors.js";
import { HttpClient } from "../../../../shared/lib/http/httpClient.js";
import { silentLogger } from "../../../../shared/lib/log.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { sweep as runSweep } from "../../../../shared/usecases/sweep/sweep.js";
import type { Fault, Simulator } from "../../../../sim/index.js";
import { collectingLogger } from "../../../support/app.js";
import { renewDueWith } from "../../../support/renewDue.js";
import {
  expectNoSecretLeaks,
  failure,
  runtimeFor,
  type Sandbox,
  startSandbox,
  tokenResources,
  watchSecret,
} from "../../../support/simulatorServices.js";

/*
 * Token lifetimes are not trusted blindly. Once, an absurd expires_on was cached for ever and a 401
 * never cleared it; a token arriving inside the refresh margin was asked for again on every call.
 * Healthy lifetimes: at most 2 token requests per sweep; under a 401: at most 4.
 */

const MANAGEMENT = "https://management.core.windows.net/";
const VAULT = "https://vault.azure.net";
const YEAR_S = 365 * 86_400;
const DUE = 40;

let sandbox: Sandbox;
let sim: Simulator;
const runtimes: AccountPorts[] = [];

function runtime(overrides: Parameters<typeof runtimeFor>[2] = {}): AccountPorts {
  const r = runtimeFor(sim, {}, overrides);
  runtimes.push(r);
  return r;
}

/** A token answer of the identity provider (spec 2.5), every field a string. */
function tokenAnswer(fields: {
  resource: string;
  access_token: string;
  expires_in: number;
  expires_on: number;
}): Fault {
  const body = {
    token_type: "Bearer",
    ext_expires_in: String(fields.expires_in),
    not_before: String(Math.floor(Date.now() / 1000)),
    ...fields,
    expires_in: String(fields.expires_in),
    expires_on: String(fields.expires_on),
  };
  return {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify(body),
  };
}

/** Genuine tokens the simulator issued (valid for an hour), got by another runtime. */
async function genuineTokens(): Promise<{ management: string; vault: string }> {
  const other = runtime();
  return {
    management: await other.tokens.token(MANAGEMENT),
    vault: await other.tokens.token(VAULT),
  };
}

function sweep(r: AccountPorts) {
  return renewDueWith({
    client: r.client,
    ledger: memoryLedger(),
    log: silentLogger,
    now: () => new Date(),
    concurrency: 8,
    graceMs: 2 * 3_600_000,
    dryRun: false,
  });
}

/** A simulator with DUE certificates due, fresh for each test: sweeps change its state. */
beforeEach(async () => {
  const now = Date.now();
  sandbox = await startSandbox({
    sim: {
      certificates: Array.from({ length: DUE }, (_, i) => ({
        certificateName: `lifetime-${i}`,
        expiryDate: new Date(now + ((i % 19) + 1.5) * DAY_MS),
        target: i % 2 ? ("Cloud Key Vault + DNS" as const) : ("Cloud App Service" as const),
      })),
    },
  });
  sim = sandbox.sim;
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
  await sandbox.close();
});
afterAll(() => {
  expectNoSecretLeaks();
});

describe("the cached lifetime is bounded by expires_in and by 24 h", () => {
  let http: HttpClient;
  let t: number;

  function cache(): TokenCache {
    const source = clientCredentialsSource({
      tokenUrl: sim.tokenUrl,
      tenantId: sim.options.tenantId,
      clientId: sim.options.clientId,
      withClientSecret: (request) => request(sim.options.clientSecret),
      http,
    });
    return new TokenCache(source, { now: () => t });
  }

  beforeEach(() => {
    http = new HttpClient({ timeoutMs: 5_000 });
    t = Math.floor(Date.now() / 1000) * 1000;
  });
  afterEach(() => http.close());

  it.each([
    ["expires_on ten years ahead, expires_in an hour", 3_599, 3_599_000],
    ["both ten years ahead: the 24 h ceiling", 10 * YEAR_S, MAX_TOKEN_LIFETIME_MS],
  ])("%s", async (_, expiresIn, keptMs) => {
    const t0 = t / 1000;
    sim.inject(
      "token",
      tokenAnswer({
        resource: MANAGEMENT,
        access_token: "absurd-lifetime-token",
        expires_in: expiresIn,
        expires_on: t0 + 10 * YEAR_S,
      }),
    );
    const tokens = cache();

    expect(await tokens.token(MANAGEMENT)).toBe("absurd-lifetime-token");
    t += keptMs - EXPIRY_MARGIN_MS - 1;
    expect(await tokens.token(MANAGEMENT)).toBe("absurd-lifetime-token");
    expect(sim.requestsFor("token")).toHaveLength(1);

    t += 1;
    const fresh = await tokens.token(MANAGEMENT);

    expect(fresh).not.toBe("absurd-lifetime-token");
    expect(sim.issuedTokens()).toContain(fresh);
    expect(sim.requestsFor("token")).toHaveLength(2);
  });

  it.each([
    ["with or without its trailing slash", "https://management.core.windows.net", MANAGEMENT],
    ["the vault's, with a slash added", "https://vault.azure.net/", VAULT],
  ])("accepts the resource echoed %s", async (_, echoed, asked) => {
    sim.inject(
      "token",
      tokenAnswer({
        resource: echoed,
        access_token: "echoed-resource-token",
        expires_in: 3_599,
        expires_on: t / 1000 + 3_599,
      }),
    );

    expect(await cache().token(asked)).toBe("echoed-resource-token");
  });

  it("refuses a token issued for another resource, naming both", async () => {
    sim.inject(
      "token",
      tokenAnswer({
        resource: "https://graph.microsoft.com/",
        access_token: "token-for-graph",
        expires_in: 3_599,
        expires_on: t / 1000 + 3_599,
      }),
    );

    const error = await failure(cache().token(MANAGEMENT));

    expect(error).toBeInstanceOf(TokenError);
    expect(error).toMatchObject({ code: "TOKEN_UNAVAILABLE", resource: MANAGEMENT, status: 200 });
    expect(error.message).toBe(
      `Identity provider answered 200 with a token for "https://graph.microsoft.com/", not for ${MANAGEMENT}`,
    );
  });
});

describe("a token that arrives inside the 5-minute margin", () => {
  it.each([
    ["one minute left", 60],
    ["expires_on already past", -600],
  ])("%s: used for the whole sweep, one request per resource, and a warning", async (_, leftS) => {
    const genuine = await genuineTokens();
    const r = runtime();
    const warnings: string[] = [];
    r.tokens.onWarning((m) => warnings.push(m));
    sim.reset();
    const on = Math.floor(Date.now() / 1000) + leftS;
    sim.inject(
      "token",
      tokenAnswer({
        resource: MANAGEMENT,
        access_token: genuine.management,
        expires_in: 3_599,
        expires_on: on,
      }),
    );
    sim.inject(
      "token",
      tokenAnswer({
        resource: VAULT,
        access_token: genuine.vault,
        expires_in: 3_599,
        expires_on: on,
      }),
    );
    // In this order, so each injected answer meets the request for its own resource.
    await r.tokens.token(MANAGEMENT);
    await r.tokens.token(VAULT);

    const summary = await sweep(r);

    expect(summary.counts).toMatchObject({ "renewal-scheduled": DUE, failed: 0 });
    expect(tokenResources(sim)).toEqual([MANAGEMENT, VAULT]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^certsched: the token for ${MANAGEMENT} arrived with -?\\d+ s left, inside the 5-minute refresh margin`,
      ),
    );
    expect(warnings[0]).toMatch(/using it for up to 10 minutes without asking again$/);
  });

  it("the sweep's own log carries the warning (runSweep), and only that sweep's", async () => {
    const genuine = await genuineTokens();
    const r = runtime();
    // The vault token is a healthy one already held: during the sweep only the management
    // token is asked for, and it meets the answer injected for it.
    await r.tokens.token(VAULT);
    const shortLived = () =>
      tokenAnswer({
        resource: MANAGEMENT,
        access_token: genuine.management,
        expires_in: 30,
        expires_on: Math.floor(Date.now() / 1000) + 30,
      });
    sim.inject("token", shortLived());
    const { log, lines } = collectingLogger();

    const summary = await runSweep(r, log, { concurrency: 4 });

    expect(summary.failed).toBe(false);
    const warned = () => lines.filter((l) => /arrived with/.test(l.message));
    expect(warned()).toEqual([
      {
        level: "warn",
        message: expect.stringMatching(
          new RegExp(`^certsched: the token for ${MANAGEMENT} arrived with \\d+ s left`),
        ),
      },
    ]);
    // After the sweep, nobody listens on its behalf.
    r.tokens.invalidate(MANAGEMENT);
    sim.inject("token", shortLived());
    await r.tokens.token(MANAGEMENT);
    expect(warned()).toHaveLength(1);
  });

  it("is asked for again once the sweep span has passed", async () => {
    let t = Date.now();
    const r = runtime({ now: () => new Date(t) });
    const on = Math.floor(t / 1000) + 60;
    sim.inject(
      "token",
      tokenAnswer({
        resource: MANAGEMENT,
        access_token: "short-lived",
        expires_in: 60,
        expires_on: on,
      }),
    );
    await r.tokens.token(MANAGEMENT);

    t += SWEEP_SPAN_MS - 1;
    expect(await r.tokens.token(MANAGEMENT)).toBe("short-lived");
    t += 1;
    const fresh = await r.tokens.token(MANAGEMENT);

    expect(sim.issuedTokens()).toContain(fresh);
    expect(tokenResources(sim)).toEqual([MANAGEMENT, MANAGEMENT]);
  });
});

describe("a 401 from the service drops the tokens once and sends the call once more", () => {
  it("a revoked token pair (a warm host's): the sweep recovers with 4 token requests", async () => {
    const r = runtime();
    const far = Math.floor(Date.now() / 1000) + 10 * YEAR_S;
    // Tokens the service does not (or no longer) accept, cached "for ten years".
    sim.inject(
      "token",
      tokenAnswer({
        resource: MANAGEMENT,
        access_token: "revoked-management",
        expires_in: 3_599,
        expires_on: far,
      }),
    );
    sim.inject(
      "token",
      tokenAnswer({
        resource: VAULT,
        access_token: "revoked-vault",
        expires_in: 3_599,
        expires_on: far,
      }),
    );
    await r.tokens.token(MANAGEMENT);
    await r.tokens.token(VAULT);

    const summary = await sweep(r);

    expect(summary.failed).toBe(false);
    expect(summary.counts).toMatchObject({ "renewal-scheduled": DUE, failed: 0 });
    expect(tokenResources(sim).sort()).toEqual([MANAGEMENT, MANAGEMENT, VAULT, VAULT]);
    // The list was refused once, then sent with the fresh pair.
    expect(sim.requestsFor("list")).toHaveLength(2);
    expect(sim.requestsFor("publicRenew")).toHaveLength(DUE);
  });

  it("a service refusing every call: at most 4 token requests for the whole sweep", async () => {
    const r = runtime();
    sim.inject("publicRenew", {
      status: 401,
      body: "Authorization failed: access denied",
      times: Number.POSITIVE_INFINITY,
    });

    const summary = await sweep(r);

    expect(summary.failed).toBe(true);
    expect(summary.counts).toMatchObject({ "renewal-scheduled": 0, failed: DUE });
    expect(new Set(summary.results.map((x) => x.error))).toEqual(
      new Set(["UPSTREAM_UNAUTHORIZED"]),
    );
    expect(tokenResources(sim).sort()).toEqual([MANAGEMENT, MANAGEMENT, VAULT, VAULT]);
    // Each renewal is sent at most twice; those sent after the refresh only once.
    const sent = sim.requestsFor("publicRenew").length;
    expect(sent).toBeGreaterThan(DUE);
    expect(sent).toBeLessThanOrEqual(2 * DUE);
  });

  it("a replacement refused too is dropped again only after the sweep span", async () => {
    let t = Date.now();
    const r = runtime({ now: () => new Date(t) });
    sim.inject("test", {
      status: 401,
      body: "Authorization failed",
      times: Number.POSITIVE_INFINITY,
    });

    await failure(r.client.test());
    expect(sim.requestsFor("test")).toHaveLength(2);
    expect(tokenResources(sim)).toHaveLength(4);

    t += SWEEP_SPAN_MS - 1;
    await failure(r.client.test());
    expect(sim.requestsFor("test")).toHaveLength(3);
    expect(tokenResources(sim)).toHaveLength(4);

    t += 1;
    await failure(r.client.test());
    expect(sim.requestsFor("test")).toHaveLength(5);
    expect(tokenResources(sim)).toHaveLength(6);
  });

  it("a v3 renew refused with 401 is sent once more with a fresh management token", async () => {
    const r = runtime();
    const stale = "revoked-management-v3";
    watchSecret(stale);
    sim.inject(
      "token",
      tokenAnswer({
        resource: MANAGEMENT,
        access_token: stale,
        expires_in: 3_599,
        expires_on: Math.floor(Date.now() / 1000) + 3_599,
      }),
    );

    // The simulator's v3 renew does not check cloud tokens: refuse the first call itself.
    sim.inject("renew", { status: 401, body: "Unauthorized: token expired" });
    const answer = await r.client.renew("lifetime-0");

    expect(answer).toMatch(/^Certificate lifetime-0 is scheduled/);
    const sent = sim.requestsFor("renew").map((x) => JSON.parse(x.body).accessToken as string);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe(stale);
    expect(sim.issuedTokens()).toContain(sent[1]);
    expect(tokenResources(sim)).toEqual([MANAGEMENT, MANAGEMENT]);
  });
});
