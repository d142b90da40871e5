import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildTestRequest } from "../../../../shared/adapters/service/requests.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { UpstreamError } from "../../../../shared/lib/errors.js";
import { HttpClient } from "../../../../shared/lib/http/httpClient.js";
import type { RetryPolicy } from "../../../../shared/lib/http/retryPolicy.js";
import {
  type Fault,
  type SimOperation,
  type Simulator,
  sampleCertificates,
} from "../../../../sim/index.js";
import {
  createInput,
  expectNoSecretLeaks,
  failure,
  runtimeFor,
  type Sandbox,
  startSandbox,
} from "../../../support/simulatorServices.js";

/*
 * The retry matrix over real sockets. Faults are queued in the simulator; what counts is how many
 * requests of each operation reached it. Retry-After "0" or a past date keeps retries instant;
 * the few backoff retries cost 125-250 ms each (REPEATABLE's first step).
 */

let sandbox: Sandbox;
let sim: Simulator;
let runtime: AccountPorts;
const extraRuntimes: AccountPorts[] = [];

type ServiceOp = Exclude<SimOperation, "token">;

/** One call per operation, each valid against the sample certificates. */
const CALLS: Record<ServiceOp, (r: AccountPorts) => Promise<unknown>> = {
  create: (r) => r.client.create(createInput("appServiceHttp")),
  renew: (r) => r.client.renew("www-contoso-com"),
  get: (r) => r.client.get("www-contoso-com"),
  list: (r) => r.client.listDue(),
  publicRenew: (r) =>
    r.client.renewListed({
      certificateName: "shop-contoso-com",
      target: "Cloud App Service",
      renewal: "Automatic",
      id: 2,
      subscriptionId: 1001,
    }),
  test: (r) => r.client.test(),
};

const PAST = "Wed, 21 Oct 2015 07:28:00 GMT";

function withLedgerlessPorts(env: Record<string, string>, overrides = {}): AccountPorts {
  const r = runtimeFor(sim, env, overrides);
  extraRuntimes.push(r);
  return r;
}

/** Runs `call` after faulting `op`; returns how many requests of `op` reached the simulator. */
async function attempts(
  op: ServiceOp,
  faults: Fault[],
  r: AccountPorts = runtime,
): Promise<{ count: number; result: unknown }> {
  // Tokens first, so token requests and their timing never mix with the faulted call.
  await cloudTokens(r);
  sim.reset();
  for (const fault of faults) sim.inject(op, fault);
  const result = await CALLS[op](r);
  return { count: sim.requestsFor(op).length, result };
}

/** Both cloud tokens, fetched (or read from the cache) before any fault is queued. */
async function cloudTokens(r: AccountPorts): Promise<{ management: string; vault: string }> {
  return {
    management: await r.tokens.token(r.settings.managementResource),
    vault: await r.tokens.token(r.settings.vaultResource),
  };
}

async function failedAttempts(op: ServiceOp, faults: Fault[], r: AccountPorts = runtime) {
  const error = await failure(attempts(op, faults, r));
  return { count: sim.requestsFor(op).length, error: error as UpstreamError };
}

beforeAll(async () => {
  sandbox = await startSandbox({ sim: { certificates: sampleCertificates(new Date()) } });
  sim = sandbox.sim;
});
beforeEach(() => {
  sim.reset();
  runtime = runtimeFor(sim);
});
afterEach(async () => {
  await runtime.close();
  await Promise.all(extraRuntimes.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await sandbox.close();
  expectNoSecretLeaks();
});

describe("429 and 503 are retried for every operation, honouring Retry-After", () => {
  it.each<[ServiceOp, number, string]>([
    ["list", 429, "0"],
    ["test", 503, "0"],
    ["renew", 429, PAST],
    ["publicRenew", 503, PAST],
    ["create", 503, "0"],
    ["create", 429, PAST],
  ])("%s: %i with Retry-After %j, then success", async (op, status, retryAfter) => {
    const { count, result } = await attempts(op, [
      { status, headers: { "retry-after": retryAfter }, body: "Too busy" },
    ]);

    expect(count).toBe(2);
    expect(result).toBeDefined();
  });

  it("create refused once with 503 is scheduled exactly once", async () => {
    const input = createInput("appServiceDns", { certificateName: "retried-create" });
    sim.inject("create", { status: 503, headers: { "retry-after": "0" } });

    await expect(runtime.client.create(input)).resolves.toBe(
      "Certificate retried-create is scheduled for creation.",
    );
    expect(sim.requestsFor("create")).toHaveLength(2);
    expect(sim.certificates().filter((c) => c.certificateName === "retried-create")).toHaveLength(
      1,
    );
  });

  it("reads an HTTP date against the injected clock", async () => {
    // A whole second a minute ahead; the runtime's clock stands 150 ms before it.
    const retryAt = Math.ceil(Date.now() / 1000) * 1000 + 60_000;
    const clocked = withLedgerlessPorts({}, { now: () => new Date(retryAt - 150) });

    const { count, result } = await attempts(
      "test",
      [{ status: 429, headers: { "retry-after": new Date(retryAt).toUTCString() } }],
      clocked,
    );

    expect(count).toBe(2);
    expect(result).toBe("Connection successful.");
  });

  it.each<[ServiceOp, string]>([
    ["list", "3600"],
    ["create", new Date(Date.now() + 3_600_000).toUTCString()],
  ])("%s: does not wait for a Retry-After beyond 30 s (%s)", async (op, retryAfter) => {
    const { count, error } = await failedAttempts(op, [
      { status: 429, headers: { "retry-after": retryAfter }, body: "Slow down" },
    ]);

    expect(count).toBe(1);
    expect(error).toMatchObject({ code: "UPSTREAM_FAILED", status: 429, detail: "Slow down" });
  });

  it("gives up after three retries with the last status", async () => {
    const { count, error } = await failedAttempts("test", [
      {
        status: 503,
        headers: { "retry-after": "0" },
        body: "Service Unavailable",
        times: Number.POSITIVE_INFINITY,
      },
    ]);

    expect(count).toBe(4);
    expect(error).toMatchObject({ code: "UPSTREAM_FAILED", status: 503, retriable: true });
    expect(error.message).toBe(
      "connectivity test failed: the service answered 503: Service Unavailable",
    );
  });
});

describe("connection reset", () => {
  it.each<ServiceOp>(["list", "renew", "publicRenew", "test"])(
    "%s: retried, then success",
    async (op) => {
      const { count, result } = await attempts(op, [{ reset: true }]);

      expect(count).toBe(2);
      expect(result).toBeDefined();
    },
  );

  it("create: not retried, UPSTREAM_UNREACHABLE", async () => {
    const { count, error } = await failedAttempts("create", [{ reset: true }]);

    expect(count).toBe(1);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ code: "UPSTREAM_UNREACHABLE", upstream: "create" });
    expect(error.message).toMatch(/^create: cannot reach the service \(/);
  });
});

describe("other 5xx: retried where repeating is harmless, never for create", () => {
  it.each<[ServiceOp, number]>([
    ["list", 500],
    ["test", 502],
    ["renew", 504],
    ["publicRenew", 500],
  ])("%s: %i retried, then success", async (op, status) => {
    const { count, result } = await attempts(op, [{ status, body: "oops" }]);

    expect(count).toBe(2);
    expect(result).toBeDefined();
  });

  it.each([500, 502, 504])("create: %i sent once, UPSTREAM_FAILED", async (status) => {
    const { count, error } = await failedAttempts("create", [{ status, body: "Internal error" }]);

    expect(count).toBe(1);
    expect(error).toMatchObject({ code: "UPSTREAM_FAILED", status, detail: "Internal error" });
  });
});

describe("400, 401 and 404 are answers: never retried", () => {
  const ops: ServiceOp[] = ["create", "renew", "list", "publicRenew", "test"];
  const rows = ops.flatMap((op) =>
    (
      [
        [400, "UPSTREAM_REJECTED"],
        [401, "UPSTREAM_UNAUTHORIZED"],
        [404, "UPSTREAM_FAILED"],
      ] as const
    ).map(([status, code]) => ({ op, status, code })),
  );

  // A 401 is sent once more, with fresh cloud tokens: a token revoked or
  // expired early must not fail the call. That is a new request, not a retry of the same one.
  it.each(rows)("$op: $status not retried", async ({ op, status, code }) => {
    const faults = [{ status, body: `refused with ${status}`, times: 5 }];

    if (op === "list" && status === 404) {
      const { count, result } = await attempts(op, faults);
      expect(count).toBe(1);
      expect(result).toEqual({ certificates: [], rejected: [] });
      // Believed only once the connectivity test on the same address answered 200.
      expect(sim.requestsFor("test")).toHaveLength(1);
      return;
    }
    const { count, error } = await failedAttempts(op, faults);
    expect(count).toBe(status === 401 ? 2 : 1);
    expect(error).toMatchObject({ code, status, detail: `refused with ${status}`, upstream: op });
  });
});

describe("timeouts (CERTSCHED_HTTP_TIMEOUT, CERTSCHED_SCHEDULE_TIMEOUT for create)", () => {
  it("create: a hang past the timeout is UPSTREAM_TIMEOUT, sent once", async () => {
    const impatient = withLedgerlessPorts({ CERTSCHED_SCHEDULE_TIMEOUT: "200ms" });

    const { count, error } = await failedAttempts("create", [{ delayMs: 5_000 }], impatient);

    expect(count).toBe(1);
    expect(error).toMatchObject({ code: "UPSTREAM_TIMEOUT", upstream: "create", retriable: true });
    expect(error.message).toMatch(/^create: no answer within the timeout \(/);
  });

  it("list: a hang past the timeout is retried, then success", async () => {
    const impatient = withLedgerlessPorts({ CERTSCHED_HTTP_TIMEOUT: "200ms" });

    const { count, result } = await attempts("list", [{ delayMs: 5_000 }], impatient);

    expect(count).toBe(2);
    expect((result as { certificates: unknown[] }).certificates.length).toBeGreaterThan(0);
  });
});

describe("HttpClient with a custom policy", () => {
  const FAST: RetryPolicy = {
    statuses: [500],
    networkErrors: true,
    maxRetries: 2,
    baseDelayMs: 1,
    maxDelayMs: 4,
    maxRetryAfterMs: 1_000,
  };
  let http: HttpClient;

  beforeEach(() => {
    http = new HttpClient({ timeoutMs: 2_000, random: () => 0 });
  });
  afterEach(() => http.close());

  async function sendTest(policy: RetryPolicy, faults: Fault[]) {
    const request = buildTestRequest(
      sim.publicBaseUrl,
      sim.options.subscriptionId,
      await cloudTokens(runtime),
    );
    sim.reset();
    for (const fault of faults) sim.inject("test", fault);
    return http.send({ upstream: "test", ...request, policy });
  }

  it("returns the last status (not thrown) once maxRetries is spent", async () => {
    const res = await sendTest(FAST, [
      { status: 500, body: "down", times: Number.POSITIVE_INFINITY },
    ]);

    expect(res).toMatchObject({ status: 500, text: "down" });
    expect(sim.requestsFor("test")).toHaveLength(3);
  });

  it("does not retry a status the policy does not name", async () => {
    const res = await sendTest(FAST, [{ status: 503, headers: { "retry-after": "0" } }]);

    expect(res.status).toBe(503);
    expect(sim.requestsFor("test")).toHaveLength(1);
  });

  it("retries resets within maxRetries", async () => {
    const res = await sendTest(FAST, [{ reset: true, times: 2 }]);

    expect(res).toMatchObject({ status: 200, text: "Connection successful." });
    expect(sim.requestsFor("test")).toHaveLength(3);
  });

  it("does not retry a reset when networkErrors is off", async () => {
    const error = await failure(sendTest({ ...FAST, networkErrors: false }, [{ reset: true }]));

    expect(error).toMatchObject({ code: "UPSTREAM_UNREACHABLE", upstream: "test" });
    expect(sim.requestsFor("test")).toHaveLength(1);
  });

  it("never follows a redirect (it could hand the tokens to another host)", async () => {
    const res = await sendTest(FAST, [
      { status: 307, headers: { location: `${sim.baseUrl}/elsewhere` } },
    ]);

    expect(res.status).toBe(307);
    expect(sim.requests.map((r) => r.path)).toEqual([
      `/public/v1/subscription/${sim.options.subscriptionId}/public/certificate/test`,
    ]);
  });
});

describe("secrets", () => {
  it("appear in none of the errors this file provoked", () => {
    expectNoSecretLeaks(20);
  });
});
