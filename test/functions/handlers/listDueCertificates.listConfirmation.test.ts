import { afterEach, describe, expect, it } from "vitest";
import { listDueCertificates } from "../../../functions/listDueCertificates.js";
import type { AccountPorts } from "../../../shared/app/services.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import { ConfigError } from "../../../shared/lib/errors.js";
import { silentLogger } from "../../../shared/lib/log.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import type { SeedCertificate, Simulator } from "../../../sim/index.js";
import { startHarness } from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";
import { renewDueWith } from "../../support/renewDue.js";
import {
  expectNoSecretLeaks,
  failure,
  runtimeFor,
  startSandbox,
} from "../../support/simulatorServices.js";

/*
 * Once, with a typo in CERTSCHED_PUBLIC_BASE_URL the list path answered the server's
 * plain-text "404 Not found", and the sweep said "Nothing is due" while 12 certificates were.
 * A 404 from the list now means "none due" only once the connectivity test under the same base
 * answers 200; a 404 there too is a configuration error naming CERTSCHED_PUBLIC_BASE_URL.
 */

const twelveDue: SeedCertificate[] = Array.from({ length: 12 }, (_, i) => ({
  certificateName: `due-${i}`,
  expiryDate: new Date(Date.now() + (i + 1.5) * DAY_MS),
}));

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function world(
  certificates: SeedCertificate[],
  env: (sim: Simulator) => Record<string, string> = () => ({}),
): Promise<{ sim: Simulator; runtime: AccountPorts }> {
  const sandbox = await startSandbox({ sim: { certificates } });
  const runtime = runtimeFor(sandbox.sim, env(sandbox.sim));
  closers.push(async () => {
    await runtime.close();
    await sandbox.close();
  });
  return { sim: sandbox.sim, runtime };
}

const sweep = (runtime: AccountPorts) =>
  renewDueWith({
    client: runtime.client,
    ledger: memoryLedger(),
    log: silentLogger,
    now: () => new Date(),
    concurrency: 4,
    graceMs: 2 * 3_600_000,
    dryRun: false,
  });

const misrouted = (sim: Simulator) => ({ CERTSCHED_PUBLIC_BASE_URL: `${sim.baseUrl}/pubilc` });

describe("a mistyped CERTSCHED_PUBLIC_BASE_URL", () => {
  it("is a configuration error naming the setting, not an empty list", async () => {
    const { sim, runtime } = await world(twelveDue, misrouted);

    const error = await failure(runtime.client.listDue());

    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: "CONFIG_INVALID" });
    expect((error as ConfigError).problems).toEqual([
      {
        name: "CERTSCHED_PUBLIC_BASE_URL",
        message: `${sim.baseUrl}/pubilc is not the service's public API: its list and its connectivity test both answered 404 (check the address; by default it is CERTSCHED_BASE_URL followed by /public)`,
      },
    ]);
    // The list, then the test that would have confirmed it; both met the server's 404.
    expect(sim.requests.filter((r) => r.operation !== "token").map((r) => r.path)).toEqual([
      `/pubilc/v1/subscription/${sim.options.subscriptionId}/public/certificate/renew/getlist`,
      `/pubilc/v1/subscription/${sim.options.subscriptionId}/public/certificate/test`,
    ]);
  });

  it("fails the sweep, which no longer says nothing is due", async () => {
    const { sim, runtime } = await world(twelveDue, misrouted);

    const summary = await sweep(runtime);

    expect(summary.failed).toBe(true);
    expect(summary.results).toEqual([]);
    expect(summary.listError).toMatch(/CERTSCHED_PUBLIC_BASE_URL: .* both answered 404/);
    expect(sim.requestsFor("publicRenew")).toHaveLength(0);
  });
});

describe("GET /api/certificates/due with a mistyped address", () => {
  it("answers 503 naming CERTSCHED_PUBLIC_BASE_URL, not an empty list", async () => {
    const app = await startHarness({ certificates: twelveDue });
    closers.push(() => app.close());
    await app.configure(misrouted(app.sim));

    const reply = await app.call(
      listDueCertificates,
      httpRequest({ method: "GET", path: "certificates/due" }),
    );

    expect(reply.status).toBe(503);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({
      code: "CONFIG_INVALID",
      title: "certsched is not configured",
      errors: [
        { name: "CERTSCHED_PUBLIC_BASE_URL", message: expect.stringMatching(/both answered 404/) },
      ],
    });
    expect(app.leaks()).toEqual([]);
  });
});

describe("the list's 404 on the right address", () => {
  it("is 'none due' once the connectivity test answers 200: one extra call", async () => {
    const { sim, runtime } = await world([]);

    const due = await runtime.client.listDue();

    expect(due).toEqual({ certificates: [], rejected: [] });
    expect(sim.requests.filter((r) => r.operation !== "token").map((r) => r.operation)).toEqual([
      "list",
      "test",
    ]);
    const summary = await sweep(runtime);
    expect(summary.failed).toBe(false);
  });

  it("costs nothing extra when the list answers 200", async () => {
    const { sim, runtime } = await world(twelveDue);

    const due = await runtime.client.listDue();

    expect(due.certificates).toHaveLength(12);
    expect(sim.requestsFor("test")).toHaveLength(0);
  });

  it("is not believed when the test cannot confirm it (5xx): the list fails", async () => {
    const { sim, runtime } = await world(twelveDue);
    sim.inject("list", { status: 404, body: "Not found" });
    sim.inject("test", {
      status: 503,
      headers: { "retry-after": "0" },
      body: "Service Unavailable",
      times: Number.POSITIVE_INFINITY,
    });

    const error = await failure(runtime.client.listDue());

    expect(error).toMatchObject({ code: "UPSTREAM_FAILED", upstream: "list", status: 404 });
    expect(error.message).toBe(
      "list certificates due for renewal failed: the service answered 404, and the connectivity test that would show the address is right failed: connectivity test failed: the service answered 503: Service Unavailable",
    );
  });

  it("is not believed when the test answers 401 either", async () => {
    const { sim, runtime } = await world(twelveDue);
    sim.inject("list", { status: 404, body: "Not found" });
    sim.inject("test", { status: 401, body: "Authorization failed", times: 2 });

    const error = await failure(runtime.client.listDue());

    expect(error).toMatchObject({ code: "UPSTREAM_UNAUTHORIZED", upstream: "list", status: 404 });
  });

  it("an HTML 404 is a gateway's page even when the test answers 200", async () => {
    const { sim, runtime } = await world(twelveDue);
    sim.inject("list", {
      status: 404,
      headers: { "content-type": "text/html" },
      body: "<html><head><title>404 Not Found</title></head><body>nginx</body></html>",
    });

    const error = await failure(runtime.client.listDue());

    expect(error).toMatchObject({ code: "UPSTREAM_FAILED", upstream: "list", status: 404 });
    expect(error.message).toMatch(/answered 404: HTML page "404 Not Found"$/);
    expect(sim.requestsFor("test")).toHaveLength(1);
  });

  it("leaks no secret in any of these errors", () => {
    expectNoSecretLeaks(4);
  });
});
