import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildTestRequest } from "../../../../shared/adapters/service/requests.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { callDeadlineMs, HttpClient } from "../../../../shared/lib/http/httpClient.js";
import {
  CREATE_ONLY_WHEN_REFUSED,
  REPEATABLE,
  type RetryPolicy,
} from "../../../../shared/lib/http/retryPolicy.js";
import { silentLogger } from "../../../../shared/lib/log.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import type { Simulator } from "../../../../sim/index.js";
import { renewDueWith } from "../../../support/renewDue.js";
import {
  expectNoSecretLeaks,
  failure,
  runtimeFor,
  type Sandbox,
  startSandbox,
} from "../../../support/simulatorServices.js";

/*
 * Every attempt has a deadline covering the headers AND the whole body, and
 * the retry loop one of its own. undici's bodyTimeout measures only the gap between chunks, so a
 * body dripping a byte a second used to keep a call (and a whole sweep) running forever.
 *
 * No timed assertions: what bounds these tests is vitest's own timeout. Before the fix each of
 * them hung until that timeout and failed.
 */

let sandbox: Sandbox;
let sim: Simulator;
const runtimes: AccountPorts[] = [];

/** A runtime with CERTSCHED_HTTP_TIMEOUT as given and both tokens fetched before any fault. */
async function runtimeWithTimeout(timeout: string): Promise<AccountPorts> {
  // Create and v3 renew have their own timeout (CERTSCHED_SCHEDULE_TIMEOUT): the same here.
  const runtime = runtimeFor(sim, {
    CERTSCHED_HTTP_TIMEOUT: timeout,
    CERTSCHED_SCHEDULE_TIMEOUT: timeout,
  });
  runtimes.push(runtime);
  await runtime.tokens.token(runtime.settings.managementResource);
  await runtime.tokens.token(runtime.settings.vaultResource);
  sim.reset();
  return runtime;
}

const soon = (days: number) => new Date(Date.now() + (days + 0.5) * DAY_MS);

beforeAll(async () => {
  sandbox = await startSandbox({
    sim: {
      certificates: [
        { certificateName: "drip-a", expiryDate: soon(3) },
        { certificateName: "drip-b", expiryDate: soon(5) },
        { certificateName: "drip-c", expiryDate: soon(7) },
      ],
    },
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

/** A body one byte a second: never a gap long enough for a between-chunks timeout. */
const DRIP = { dripMs: 1_000 } as const;

describe("a body dripping one byte a second, CERTSCHED_HTTP_TIMEOUT=2s", () => {
  it("list: every attempt is cut at its deadline, the call fails as UPSTREAM_TIMEOUT", {
    timeout: 30_000,
  }, async () => {
    const runtime = await runtimeWithTimeout("2s");
    sim.inject("list", { ...DRIP, times: Number.POSITIVE_INFINITY });

    const error = await failure(runtime.client.listDue());

    expect(error).toMatchObject({ code: "UPSTREAM_TIMEOUT", upstream: "list", retriable: true });
    expect(error.message).toBe(
      "list: no answer within the timeout (the body did not arrive in full within 2000 ms)",
    );
    // The list may be repeated (REPEATABLE): each attempt was cut, none ran on.
    expect(sim.requestsFor("list")).toHaveLength(4);
  });

  it("list: a drip once is cut and the retry succeeds", { timeout: 30_000 }, async () => {
    const runtime = await runtimeWithTimeout("2s");
    sim.inject("list", DRIP);

    const due = await runtime.client.listDue();

    expect(due.certificates.map((c) => c.certificateName).sort()).toEqual([
      "drip-a",
      "drip-b",
      "drip-c",
    ]);
    expect(sim.requestsFor("list")).toHaveLength(2);
  });

  it.each([
    ["publicRenew", (r: AccountPorts) => r.client.renewListed(sim.certificates()[0] ?? fail())],
    ["renew", (r: AccountPorts) => r.client.renew("drip-a")],
  ] as const)(
    "%s: cut at its deadline and, having been sent, not repeated",
    {
      timeout: 30_000,
    },
    async (op, call) => {
      const runtime = await runtimeWithTimeout("2s");
      sim.inject(op, {
        status: 200,
        body: "Certificate drip-a is scheduled for renewal.",
        ...DRIP,
        times: Number.POSITIVE_INFINITY,
      });

      const error = await failure(call(runtime));

      expect(error).toMatchObject({ code: "UPSTREAM_TIMEOUT", upstream: op });
      // RENEW: the service may have scheduled it and merely answered slowly.
      expect(sim.requestsFor(op)).toHaveLength(1);
    },
  );

  it("one dripping renewal does not freeze the sweep: it ends with a summary", {
    timeout: 30_000,
  }, async () => {
    const runtime = await runtimeWithTimeout("2s");
    // The first renewal (concurrency 1: drip-a) drips; the others answer at once.
    sim.inject("publicRenew", { status: 200, body: "Scheduled.", ...DRIP });

    const summary = await renewDueWith({
      client: runtime.client,
      ledger: memoryLedger(),
      log: silentLogger,
      now: () => new Date(),
      concurrency: 1,
      graceMs: 2 * 3_600_000,
      dryRun: false,
    });

    expect(summary.failed).toBe(true);
    expect(summary.results.map((r) => [r.certificateName, r.outcome, r.error])).toEqual([
      ["drip-a", "failed", "UPSTREAM_TIMEOUT"],
      ["drip-b", "renewal-scheduled", undefined],
      ["drip-c", "renewal-scheduled", undefined],
    ]);
  });
});

describe("the retry loop's own deadline (callDeadlineMs)", () => {
  const PATIENT: RetryPolicy = {
    statuses: [429],
    networkErrors: true,
    maxRetries: 3,
    baseDelayMs: 1,
    maxDelayMs: 1,
    maxRetryAfterMs: 60_000,
  };
  let http: HttpClient;

  beforeEach(() => {
    http = new HttpClient({ timeoutMs: 200, random: () => 0 });
  });
  afterEach(() => http.close());

  it.each([
    ["REPEATABLE, 30 s", REPEATABLE, 30_000, 4 * 30_000 + 3 * 5_000],
    ["CREATE_ONLY_WHEN_REFUSED, 2 s", CREATE_ONLY_WHEN_REFUSED, 2_000, 4 * 2_000 + 3 * 5_000],
    ["PATIENT, 200 ms", PATIENT, 200, 4 * 200 + 3 * 1],
  ] as const)("%s: every attempt in full, the longest backoff between", (_, policy, t, ms) => {
    expect(callDeadlineMs(policy, t)).toBe(ms);
  });

  async function sendTest(runtime: AccountPorts) {
    const request = buildTestRequest(sim.publicBaseUrl, sim.options.subscriptionId, {
      management: await runtime.tokens.token(runtime.settings.managementResource),
      vault: await runtime.tokens.token(runtime.settings.vaultResource),
    });
    return http.send({ upstream: "test", ...request, policy: PATIENT });
  }

  it("does not start a Retry-After wait that would end past it: the 429 is the answer", async () => {
    const runtime = await runtimeWithTimeout("30s");
    // 2 s is within the policy's maxRetryAfterMs, but with an attempt after it, beyond the
    // call's 4 x 200 ms + 3 x 1 ms.
    sim.inject("test", { status: 429, headers: { "retry-after": "2" }, body: "Slow down" });

    const res = await sendTest(runtime);

    expect(res).toMatchObject({ status: 429, text: "Slow down" });
    expect(sim.requestsFor("test")).toHaveLength(1);
  });

  it("waits for a Retry-After that ends within it", async () => {
    const runtime = await runtimeWithTimeout("30s");
    sim.inject("test", { status: 429, headers: { "retry-after": "0" }, body: "Slow down" });

    const res = await sendTest(runtime);

    expect(res).toMatchObject({ status: 200, text: "Connection successful." });
    expect(sim.requestsFor("test")).toHaveLength(2);
  });
});

function fail(): never {
  throw new Error("the simulator holds no certificate");
}
