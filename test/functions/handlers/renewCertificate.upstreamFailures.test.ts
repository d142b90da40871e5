import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCertificate } from "../../../functions/createCertificate.js";
import { listDueCertificates } from "../../../functions/listDueCertificates.js";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { renewDueCertificates } from "../../../functions/renewDueCertificates.js";
import { runRenewals } from "../../../functions/runRenewals.js";
import { testConnectivity } from "../../../functions/testConnectivity.js";
import type { SweepSummary } from "../../../shared/core/renewal/summary.js";
import { SweepFailedError } from "../../../shared/lib/errors.js";
import {
  type AppHarness,
  closedPort,
  type Reply,
  STACK_FRAME,
  startHarness,
} from "../../support/app.js";
import { validCreateInputs } from "../../support/createBodies.js";
import { httpRequest, timer } from "../../support/invoke.js";

const INPUT = validCreateInputs().appServiceHttp;

// Retry-After: 0 lets the client retry at once, so "after retries" costs no waiting.
const AT_ONCE = { "retry-after": "0" };

let app: AppHarness;

beforeAll(async () => {
  // No certificates: the public list answers 404.
  app = await startHarness();
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure();
});
afterEach(() => {
  for (const body of app.bodies) expect(body).not.toMatch(STACK_FRAME);
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

const create = (): Promise<Reply> =>
  app.call(createCertificate, httpRequest({ path: "certificates", json: INPUT }));
const list = (): Promise<Reply> =>
  app.call(listDueCertificates, httpRequest({ method: "GET", path: "certificates/due" }));

function problemOf(reply: Reply, status: number) {
  expect(reply.status).toBe(status);
  expect(reply.headers["content-type"]).toBe("application/problem+json");
  return reply.body as { code: string; title: string; detail: string; errors?: unknown[] };
}

describe("upstream answers mapped for the caller", () => {
  it("a 400 from the service becomes 422 with the service's detail", async () => {
    app.sim.inject("create", { status: 400, body: "Certificate name is not defined" });

    const problem = problemOf(await create(), 422);

    expect(problem.code).toBe("UPSTREAM_REJECTED");
    expect(problem.detail).toContain("Certificate name is not defined");
    expect(app.sim.requestsFor("create")).toHaveLength(1);
  });

  it("a 401 for our API key becomes 502 saying certsched's credentials were refused", async () => {
    await app.configure({ CERTSCHED_API_KEY: "a-wrong-api-key-value" });
    app.addSecrets("a-wrong-api-key-value");

    const problem = problemOf(await create(), 502);

    expect(problem).toMatchObject({
      code: "UPSTREAM_UNAUTHORIZED",
      title: "The service refused certsched's credentials",
    });
    expect(problem.detail).toContain("invalid API key");
    // Sent once more with fresh cloud tokens (a 401 may mean a revoked token), then given up.
    expect(app.sim.requestsFor("create")).toHaveLength(2);
  });

  it("an upstream error that echoes our API key and a token is redacted", async () => {
    await create();
    const [token] = app.sim.issuedTokens();
    app.sim.inject("create", {
      status: 400,
      body: `Bad request: key ${app.sim.options.apiKey} with token ${token} refused`,
    });

    const problem = problemOf(await create(), 422);

    expect(problem.detail).toContain("[REDACTED]");
    expect(problem.detail).toContain("refused");
  });

  it("an HTML gateway page is reduced to its title", async () => {
    app.sim.inject("create", {
      status: 502,
      headers: { "content-type": "text/html" },
      body: "<html><head><title>502 Bad Gateway</title></head><body><pre>at Object.<anonymous> (/srv/app.js:1:1)</pre></body></html>",
    });

    const problem = problemOf(await create(), 502);

    expect(problem.code).toBe("UPSTREAM_FAILED");
    expect(problem.detail).toContain('HTML page "502 Bad Gateway"');
    expect(problem.detail).not.toContain("<pre>");
  });

  it("the list's 404 is an empty list, not an error", async () => {
    const reply = await list();

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ certificates: [] });
    expect(app.sim.requestsFor("list")).toHaveLength(1);
  });

  it("a list that keeps failing with 500 becomes 502 after three retries", async () => {
    app.sim.inject("list", { status: 500, headers: AT_ONCE, body: "boom", times: Infinity });

    const problem = problemOf(await list(), 502);

    expect(problem.code).toBe("UPSTREAM_FAILED");
    expect(problem.detail).toContain("500");
    expect(app.sim.requestsFor("list")).toHaveLength(4);
  });

  it("a list that recovers on a retry answers 200", async () => {
    app.sim.inject("list", { status: 503, headers: AT_ONCE, times: 2 });

    const reply = await list();

    expect(reply.status).toBe(200);
    expect(app.sim.requestsFor("list")).toHaveLength(3);
  });

  it("a create the service keeps refusing with 503 becomes 503 with Retry-After", async () => {
    app.sim.inject("create", { status: 503, headers: AT_ONCE, times: Infinity });

    const reply = await create();

    expect(problemOf(reply, 503).code).toBe("UPSTREAM_FAILED");
    expect(reply.headers["retry-after"]).toBe("60");
    expect(app.sim.requestsFor("create")).toHaveLength(4);
  });

  it("a create that fails with 500 is not repeated (it may have been scheduled): 502", async () => {
    app.sim.inject("create", { status: 500, headers: AT_ONCE, times: Infinity });

    const problem = problemOf(await create(), 502);

    expect(problem.code).toBe("UPSTREAM_FAILED");
    expect(app.sim.requestsFor("create")).toHaveLength(1);
  });

  it("an unreachable service becomes 503", async () => {
    await app.configure({ CERTSCHED_BASE_URL: `http://127.0.0.1:${await closedPort()}` });

    const reply = await create();

    expect(problemOf(reply, 503).code).toBe("UPSTREAM_UNREACHABLE");
    expect(reply.headers["retry-after"]).toBe("60");
    // The token came from the identity provider (still the simulator); the create went nowhere.
    expect(app.sim.requestsFor("token")).toHaveLength(1);
    expect(app.sim.requestsFor("create")).toEqual([]);
  });

  it("a service that hangs past CERTSCHED_SCHEDULE_TIMEOUT becomes 504", async () => {
    await app.configure({ CERTSCHED_SCHEDULE_TIMEOUT: "300ms" });
    app.sim.inject("create", { delayMs: 60_000 });

    const problem = problemOf(await create(), 504);

    expect(problem.code).toBe("UPSTREAM_TIMEOUT");
    expect(app.sim.requestsFor("create")).toHaveLength(1);
  });

  it("a 500 error line is logged for the operator, a 4xx only warned", async () => {
    const from = app.logs.length;
    app.sim.inject("create", { status: 500 });
    await create();
    app.sim.inject("create", { status: 400, body: "nope" });
    await create();

    const levels = app.logs
      .slice(from)
      .filter((l) => l.message.startsWith("createCertificate "))
      .map((l) => l.level);
    expect(levels).toEqual(["error", "warning"]);
  });
});

describe("a 404 from the service for one certificate's operation", () => {
  const NOT_FOUND = { status: 404, body: "Not Found" };

  it.each([
    ["createCertificate", "create", create],
    [
      "renewCertificate",
      "renew",
      () =>
        app.call(
          renewCertificate,
          httpRequest({ path: "certificates/www/renew", params: { name: "www" } }),
        ),
    ],
    [
      "testConnectivity",
      "test",
      () => app.call(testConnectivity, httpRequest({ method: "GET", path: "connectivity" })),
    ],
  ] as const)("%s answers 502 naming the 404, asked once", async (_, op, call) => {
    app.sim.inject(op, NOT_FOUND);

    const problem = problemOf(await call(), 502);

    expect(problem.code).toBe("UPSTREAM_FAILED");
    expect(problem.detail).toMatch(/answered 404: Not Found/);
    // A 404 is an answer, not an accident: not repeated.
    expect(app.sim.requestsFor(op)).toHaveLength(1);
  });
});

describe("a gateway's HTML 404 on the list (a wrong address, not an empty list)", () => {
  const TITLE = "404 Not Found";
  const PAGE = `<html><head><title>${TITLE}</title></head><body><center>nginx</center></body></html>`;
  const htmlNotFound = () =>
    app.sim.inject("list", {
      status: 404,
      headers: { "content-type": "text/html" },
      body: PAGE,
      times: Number.POSITIVE_INFINITY,
    });

  it("fails the sweep run through runRenewals, naming the 404 and the page's title", async () => {
    htmlNotFound();

    // ?wait: the queued run is swept in this process (no storage here) and answered finished.
    const reply = await app.call(
      runRenewals,
      httpRequest({ path: "renewals", query: { wait: "30" } }),
    );

    expect(reply.status).toBe(200);
    const summary = reply.body as SweepSummary;
    expect(summary.failed).toBe(true);
    expect(summary.listError).toMatch(/404/);
    expect(summary.listError).toContain(`HTML page "${TITLE}"`);
    expect(summary.listError).not.toMatch(/<html|<body|nginx/);
    expect(summary.counts.due).toBe(0);
  });

  it("makes the timer run fail", async () => {
    htmlNotFound();
    const from = app.logs.length;

    const run = renewDueCertificates(timer(), app.context("renewDueCertificates"));

    await expect(run).rejects.toBeInstanceOf(SweepFailedError);
    await expect(run).rejects.toThrow(/404/);
    const logged = app.logs.slice(from).map((l) => l.message);
    expect(logged.join("\n")).toContain(TITLE);
    expect(logged.join("\n")).not.toContain("<html");
  });

  it("makes listDueCertificates answer 502", async () => {
    htmlNotFound();

    const reply = await list();

    const problem = problemOf(reply, 502);
    expect(problem.code).toBe("UPSTREAM_FAILED");
    expect(problem.detail).toMatch(/answered 404/);
    expect(problem.detail).toContain(TITLE);
    expect(reply.text).not.toContain("<html");
  });

  it("an HTML page told only by its first tag counts too", async () => {
    app.sim.inject("list", { status: 404, body: `<!DOCTYPE html>\n${PAGE}` });

    expect(problemOf(await list(), 502).detail).toContain(TITLE);
  });

  it("an empty 404 still means nothing is due", async () => {
    app.sim.inject("list", { status: 404, body: "" });

    const reply = await list();

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ certificates: [] });
  });
});

describe("missing or invalid settings", () => {
  it("answer 503 naming every setting", async () => {
    await app.configure({
      CERTSCHED_BASE_URL: undefined,
      CERTSCHED_TENANT_ID: undefined,
      CERTSCHED_RENEWAL_CONCURRENCY: "0",
    });

    const problem = problemOf(await list(), 503);

    expect(problem.code).toBe("CONFIG_INVALID");
    const names = (problem.errors as { name: string }[]).map((e) => e.name);
    expect(names).toEqual(
      expect.arrayContaining(["CERTSCHED_BASE_URL", "CERTSCHED_RENEWAL_CONCURRENCY"]),
    );
    expect(app.sim.requests).toEqual([]);
  });

  it("name the client secret when neither it nor a vault is set", async () => {
    await app.configure({ CERTSCHED_CLIENT_SECRET: undefined, CERTSCHED_TENANT_ID: undefined });

    const problem = problemOf(await create(), 503);

    const names = (problem.errors as { name: string }[]).map((e) => e.name);
    expect(names.sort()).toEqual(["CERTSCHED_CLIENT_SECRET", "CERTSCHED_TENANT_ID"]);
  });

  it("refuse plain http to a remote host without echoing the other settings", async () => {
    await app.configure({ CERTSCHED_BASE_URL: "http://certs.example.com" });

    const reply = await create();

    const problem = problemOf(reply, 503);
    expect(problem.errors).toEqual([
      { name: "CERTSCHED_BASE_URL", message: expect.stringContaining("https") },
    ]);
  });

  it("name the missing subscription when create needs it", async () => {
    await app.configure({ CERTSCHED_SUBSCRIPTION: undefined });

    const problem = problemOf(await create(), 503);

    expect(problem.errors).toEqual([
      { name: "CERTSCHED_SUBSCRIPTION", message: expect.any(String) },
    ]);
  });

  it("make the timer fail with the settings named", async () => {
    await app.configure({ CERTSCHED_BASE_URL: undefined });

    await expect(
      renewDueCertificates(timer(), app.context("renewDueCertificates")),
    ).rejects.toThrow(/CERTSCHED_BASE_URL/);
  });
});

describe("an identity provider that is down", () => {
  it("makes the app answer 503 without a stack trace", async () => {
    const down = await startHarness();
    try {
      await down.sim.close();

      const reply = await down.call(
        testConnectivity,
        httpRequest({ method: "GET", path: "connectivity" }),
      );

      expect(problemOf(reply, 503).code).toBe("TOKEN_UNAVAILABLE");
      expect(reply.text).not.toMatch(STACK_FRAME);
      expect(down.leaks()).toEqual([]);
    } finally {
      await down.close();
    }
  });
});
