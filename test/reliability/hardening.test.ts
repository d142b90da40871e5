import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { createServer as createTcpServer } from "node:net";
import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCertificate } from "../../functions/createCertificate.js";
import { listDueCertificates } from "../../functions/listDueCertificates.js";
import { renewCertificate } from "../../functions/renewCertificate.js";
import { runRenewals } from "../../functions/runRenewals.js";
import { testConnectivity } from "../../functions/testConnectivity.js";
import { createSecretClientReader } from "../../shared/adapters/identity/secretClientReader.js";
import { loadSettings } from "../../shared/app/config/settings.js";
import { getAccountPorts } from "../../shared/app/services.js";
import { memoryLedger } from "../../shared/core/ports/ledger.js";
import type { SweepSummary } from "../../shared/core/renewal/summary.js";
import { MAX_BODY_BYTES } from "../../shared/edge/readBody.js";
import { ConfigError } from "../../shared/lib/errors.js";
import { silentLogger } from "../../shared/lib/log.js";
import { DAY_MS } from "../../shared/lib/time.js";
import { sweep } from "../../shared/usecases/sweep/sweep.js";
import type { SimOperation, Simulator } from "../../sim/index.js";
import { closedPort, configureApp, releaseApp } from "../support/app.js";
import { type FakeKeyVault, startFakeKeyVault, stubCredential } from "../support/fakeKeyVault.js";
import { httpRequest, streamingRequest } from "../support/invoke.js";
import { type Reply, toReply } from "../support/reply.js";
import { makeSelfSignedCert } from "../support/tls.js";
import { Capture } from "./support/capture.js";
import { settingsFor, startSim } from "./support/staging.js";
import { reportTally } from "./support/tally.js";

/*
 * Hardening: request bodies over 64 KiB are refused without being read whole; upstream URLs are
 * https (loopback excepted); redirects are never followed to another host; every outbound call
 * (service, identity provider, Key Vault, ledger) gives up after CERTSCHED_HTTP_TIMEOUT.
 */

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

const TIMEOUT = "500ms";
/** Longer than any test: only the client's timeout can end it (close() cuts it short). */
const FOREVER_MS = 120_000;

const CREATE = {
  certificateName: "www-contoso-com",
  rootDomain: "contoso.com",
  email: "ops@contoso.com",
  password: "Pfx-Passw0rd-hardening",
  isSAN: false,
  cloudSubscriptionId: "00000000-0000-4000-8000-00000000c0de",
  target: "Cloud App Service",
  challengeType: "http",
  cloudAppServicePlanName: "plan",
  cloudAppServicePlanResourceGroup: "rg-plan",
  cloudAppServiceResourceGroup: "rg-app",
  cloudAppServiceName: "contoso-web",
  cloudAppServiceSlotName: "",
};

const capture = new Capture();
const tally = { checks: 0, textsScanned: 0, leaks: 0 };
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({
    certificates: [{ certificateName: "due-a", expiryDate: new Date(Date.now() + 4 * DAY_MS) }],
  });
  capture.watch(sim);
});
afterEach(() => {
  expect(capture.leaks()).toEqual([]);
});
afterAll(async () => {
  await releaseApp();
  await sim.close();
  reportTally("hardening", {
    ...tally,
    textsScanned: capture.seen.length,
    leaks: capture.leaks().length,
  });
});

async function call(handler: Handler, request: HttpRequest): Promise<Reply> {
  const reply = toReply(await handler(request, capture.context(handler.name)));
  capture.add("response", reply.text);
  return reply;
}

function problem(reply: Reply, status: number): { code: string; detail: string } {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers["content-type"]).toBe("application/problem+json");
  return reply.body as { code: string; detail: string };
}

const createRequest = () =>
  httpRequest({
    path: "certificates",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(CREATE),
  });

describe("request bodies over 64 KiB", () => {
  beforeAll(() => configureApp(settingsFor(sim)));

  it("a body that never ends gets 413 after at most one chunk past the limit", async () => {
    const { request, progress } = streamingRequest({ path: "certificates" });
    const before = sim.requests.length;

    const reply = await call(createCertificate, request);

    expect(problem(reply, 413).code).toBe("PAYLOAD_TOO_LARGE");
    expect(progress.pulled()).toBeGreaterThan(MAX_BODY_BYTES);
    expect(progress.pulled()).toBeLessThanOrEqual(MAX_BODY_BYTES + 2 * 16 * 1024);
    expect(progress.cancelled()).toBe(true);
    expect(sim.requests.length).toBe(before);
    tally.checks += 1;
  });

  it("a declared Content-Length over the limit gets 413 before a byte is read", async () => {
    const { request, progress } = streamingRequest({
      path: "certificates",
      headers: { "content-length": String(10 * 1024 * 1024) },
      totalBytes: 10 * 1024 * 1024,
    });

    const reply = await call(createCertificate, request);

    expect(problem(reply, 413).code).toBe("PAYLOAD_TOO_LARGE");
    // At most what the stream buffers on its own before anyone reads.
    expect(progress.pulled()).toBeLessThanOrEqual(16 * 1024);
    tally.checks += 1;
  });

  it("a body exactly at the limit is read (and refused as invalid, not as too large)", async () => {
    const text = JSON.stringify({ ...CREATE, password: "" });
    const padded = text.replace(
      '"password":""',
      `"password":"${"p".repeat(MAX_BODY_BYTES - text.length)}"`,
    );
    expect(Buffer.byteLength(padded)).toBe(MAX_BODY_BYTES);

    const reply = await call(
      createCertificate,
      httpRequest({
        path: "certificates",
        headers: { "content-type": "application/json" },
        body: padded,
      }),
    );

    expect(problem(reply, 400).code).toBe("VALIDATION_FAILED");
    tally.checks += 1;
  });

  it.for([
    { name: "renewCertificate", handler: renewCertificate as Handler, params: { name: "due-a" } },
    { name: "runRenewals", handler: runRenewals as Handler, params: {} },
  ])("$name never reads a body it does not need", async ({ handler, params }) => {
    const { request, progress } = streamingRequest({ path: "x" });
    Object.assign(request.params, params);

    const reply = await call(handler, request);

    expect(reply.status).toBeLessThan(300);
    expect(progress.pulled()).toBeLessThanOrEqual(16 * 1024);
    // POST /api/renewals queued a run, swept in this process (no storage here): let it end
    // before the next case reconfigures the app.
    await getAccountPorts().runs.settled();
    tally.checks += 1;
  });
});

describe("upstream URLs are https, loopback excepted", () => {
  const base = {
    CERTSCHED_BASE_URL: "https://service.example.com",
    CERTSCHED_TENANT_ID: "t",
    CERTSCHED_CLIENT_ID: "c",
    CERTSCHED_CLIENT_SECRET: "secret-value",
  };
  const problemsFor = (env: Record<string, string>) => {
    try {
      loadSettings(env);
      return [];
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
  };

  it.for([
    "CERTSCHED_BASE_URL",
    "CERTSCHED_PUBLIC_BASE_URL",
    "CERTSCHED_TOKEN_URL",
    "CERTSCHED_KEY_VAULT_URL",
    "CERTSCHED_WEBHOOK_URL",
    "CERTSCHED_LEDGER_TABLE_URI",
  ])("%s refuses http://example.com, naming the setting", (setting) => {
    const problems = problemsFor({ ...base, [setting]: "http://example.com" });
    expect(problems).toEqual([{ name: setting, message: expect.stringMatching(/https/) }]);
    tally.checks += 1;
  });

  it.for([
    "http://127.0.0.1.nip.io",
    "http://localhost.example.com",
    "http://example.com@127.0.0.1",
    "http://0.0.0.0",
    "http://[::ffff:127.0.0.1]",
    "http://10.0.0.1",
    "ftp://127.0.0.1",
    "//127.0.0.1",
  ])("refuses %s as the base URL", (url) => {
    expect(problemsFor({ ...base, CERTSCHED_BASE_URL: url }).map((p) => p.name)).toEqual([
      "CERTSCHED_BASE_URL",
    ]);
    tally.checks += 1;
  });

  it.for([
    "http://127.0.0.1:8080",
    "http://localhost:8080",
    "http://[::1]:8080",
    "https://x.example",
  ])("accepts %s", (url) => {
    expect(problemsFor({ ...base, CERTSCHED_BASE_URL: url })).toEqual([]);
    tally.checks += 1;
  });

  it("a function configured with http://example.com answers 503 naming the setting", async () => {
    await configureApp({ ...settingsFor(sim), CERTSCHED_BASE_URL: "http://example.com" });
    const reply = await call(
      testConnectivity,
      httpRequest({ method: "GET", path: "connectivity" }),
    );
    const body = problem(reply, 503) as { code: string; errors?: { name: string }[] };
    expect(body.code).toBe("CONFIG_INVALID");
    expect(body.errors?.map((e) => e.name)).toEqual(["CERTSCHED_BASE_URL"]);
    tally.checks += 1;
  });
});

/** A loopback server that records whatever reaches it: the host a redirect points at. */
async function witness(): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = createHttpServer((req, res) => {
    hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
    res.end("ok");
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => close(server),
  };
}

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<void> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

describe("redirects are not followed to another host", () => {
  let other: Awaited<ReturnType<typeof witness>>;
  beforeAll(async () => {
    other = await witness();
  });
  afterAll(() => other.close());

  const cases: { op: SimOperation; status: number; run: () => Promise<Reply>; expect: number }[] = [
    {
      op: "list",
      status: 302,
      run: () =>
        call(listDueCertificates, httpRequest({ method: "GET", path: "certificates/due" })),
      expect: 502,
    },
    {
      op: "test",
      status: 307,
      run: () => call(testConnectivity, httpRequest({ method: "GET", path: "connectivity" })),
      expect: 502,
    },
    { op: "create", status: 308, run: () => call(createCertificate, createRequest()), expect: 502 },
    {
      op: "renew",
      status: 301,
      run: () => call(renewCertificate, httpRequest({ path: "x", params: { name: "due-a" } })),
      expect: 502,
    },
    {
      op: "token",
      status: 302,
      run: () => call(testConnectivity, httpRequest({ method: "GET", path: "connectivity" })),
      expect: 503,
    },
  ];

  it.for(cases)("$op answering $status: the other host sees nothing", async (c) => {
    await configureApp(settingsFor(sim));
    sim.reset();
    sim.inject(c.op, { status: c.status, headers: { location: `${other.url}/stolen` }, times: 10 });

    const reply = await c.run();

    expect(problem(reply, c.expect).detail).toMatch(new RegExp(`answered ${c.status}`));
    expect(sim.requestsFor(c.op)).toHaveLength(1);
    expect(other.hits).toEqual([]);
    tally.checks += 1;
  });

  it("public renew answering 307 during a sweep: failed, the other host sees nothing", async () => {
    await configureApp(settingsFor(sim), { ledger: memoryLedger() });
    sim.reset();
    sim.addCertificate({
      certificateName: "due-redirect",
      expiryDate: new Date(Date.now() + DAY_MS),
    });
    sim.inject("publicRenew", { status: 307, headers: { location: `${other.url}/stolen` } });

    // ?wait: the queued run is swept in this process (no storage here) and answered finished.
    const reply = await call(runRenewals, httpRequest({ path: "renewals", rawQuery: "wait=30" }));

    const summary = reply.body as SweepSummary;
    expect(summary.results.map((r) => [r.certificateName, r.outcome, r.status])).toEqual([
      ["due-redirect", "failed", 307],
    ]);
    expect(sim.renewCallsFor("due-redirect")).toBe(0);
    expect(other.hits).toEqual([]);
    tally.checks += 1;
  });

  it("Key Vault answering 302 and 307 to another host: the secret is not fetched there", async () => {
    const { key, cert } = await makeSelfSignedCert();
    const thief: string[] = [];
    const thiefServer = createHttpsServer({ key, cert }, (req, res) => {
      thief.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
      res.end("{}");
    });
    await listen(thiefServer);
    const thiefUrl = `https://127.0.0.1:${(thiefServer.address() as AddressInfo).port}`;
    let status = 302;
    const vault = createHttpsServer({ key, cert }, (req, res) => {
      res.writeHead(status, { location: `${thiefUrl}${req.url ?? "/"}` });
      res.end();
    });
    await listen(vault);
    const settings: Record<string, string> = {
      ...settingsFor(sim),
      CERTSCHED_KEY_VAULT_URL: `https://127.0.0.1:${(vault.address() as AddressInfo).port}`,
    };
    delete settings.CERTSCHED_CLIENT_SECRET;
    try {
      for (status of [302, 307]) {
        await configureApp(settings, {
          createSecretReader: (url) =>
            createSecretClientReader(url, stubCredential, {
              disableChallengeResourceVerification: true,
              tlsOptions: { ca: cert },
              retryOptions: { maxRetries: 0 },
            }),
        });
        const reply = await call(
          testConnectivity,
          httpRequest({ method: "GET", path: "connectivity" }),
        );
        // Refused, not followed. (The SDK cannot read a redirect's empty body and says so with
        // a TypeError, so the message names no status: an SDK quirk, noted in the docs.)
        const body = problem(reply, 503);
        expect(body.code).toBe("SECRET_UNAVAILABLE");
        expect(body.detail).toMatch(
          /Could not read secret "certsched-client-secret" from Key Vault/,
        );
      }
      expect(thief).toEqual([]);
      tally.checks += 1;
    } finally {
      await close(thiefServer as unknown as Server);
      await close(vault as unknown as Server);
    }
  });
});

describe("every outbound call gives up after CERTSCHED_HTTP_TIMEOUT", () => {
  afterEach(() => sim.clearFaults());

  const get = (path: string) => httpRequest({ method: "GET", path });
  const cases: {
    op: SimOperation;
    handler: Handler;
    request: () => HttpRequest;
    status: number;
    detail: RegExp;
    /** Attempts the client may make: create and both renews are not repeated after a timeout. */
    attempts: number;
  }[] = [
    {
      op: "create",
      handler: createCertificate,
      request: createRequest,
      status: 504,
      detail: /create: no answer within the timeout/,
      attempts: 1,
    },
    {
      op: "renew",
      handler: renewCertificate,
      request: () => httpRequest({ path: "x", params: { name: "due-a" } }),
      status: 504,
      detail: /no answer within the timeout/,
      attempts: 1,
    },
    {
      op: "list",
      handler: listDueCertificates,
      request: () => get("certificates/due"),
      status: 504,
      detail: /no answer within the timeout/,
      attempts: 4,
    },
    {
      op: "test",
      handler: testConnectivity,
      request: () => get("connectivity"),
      status: 504,
      detail: /no answer within the timeout/,
      attempts: 4,
    },
    {
      op: "token",
      handler: testConnectivity,
      request: () => get("connectivity"),
      status: 503,
      detail: /Identity provider unreachable.*no answer within the timeout/,
      attempts: 4,
    },
  ];

  it.for(cases)("$op hangs: $status naming the timeout", async (c) => {
    // Create and v3 renew wait CERTSCHED_SCHEDULE_TIMEOUT instead: the same here.
    await configureApp(
      settingsFor(sim, { CERTSCHED_HTTP_TIMEOUT: TIMEOUT, CERTSCHED_SCHEDULE_TIMEOUT: TIMEOUT }),
    );
    sim.reset();
    sim.inject(c.op, { delayMs: FOREVER_MS, times: 100 });

    const reply = await call(c.handler, c.request());

    expect(problem(reply, c.status).detail).toMatch(c.detail);
    // Token requests for both resources may each retry.
    const attempts = sim.requestsFor(c.op).length;
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeLessThanOrEqual(c.op === "token" ? 2 * c.attempts : c.attempts);
    tally.checks += 1;
  });

  it("Key Vault hangs: 503 naming the vault and the timeout", async () => {
    const vault: FakeKeyVault = await startFakeKeyVault({
      secrets: { "certsched-client-secret": sim.options.clientSecret },
    });
    try {
      vault.inject({ delayMs: FOREVER_MS, times: 100 });
      const settings: Record<string, string> = {
        ...settingsFor(sim, { CERTSCHED_HTTP_TIMEOUT: TIMEOUT }),
        CERTSCHED_KEY_VAULT_URL: vault.url,
      };
      delete settings.CERTSCHED_CLIENT_SECRET;
      await configureApp(settings, {
        createSecretReader: (url) =>
          createSecretClientReader(url, stubCredential, vault.clientOptions),
      });

      const reply = await call(testConnectivity, get("connectivity"));

      expect(problem(reply, 503).detail).toMatch(
        /Key Vault 127\.0\.0\.1:\d+: no answer within the timeout/,
      );
      tally.checks += 1;
    } finally {
      await vault.close();
    }
  });

  it("the ledger's storage hangs: the sweep goes on without it and fails naming it", async () => {
    const sockets = new Set<Socket>();
    const blackHole = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on("data", () => {});
    });
    await listen(blackHole);
    const port = (blackHole.address() as AddressInfo).port;
    try {
      sim.addCertificate({
        certificateName: "due-ledger-hang",
        expiryDate: new Date(Date.now() + DAY_MS),
      });
      await configureApp(
        settingsFor(sim, {
          CERTSCHED_HTTP_TIMEOUT: TIMEOUT,
          AzureWebJobsStorage: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${Buffer.from("k").toString("base64")};BlobEndpoint=http://127.0.0.1:${port}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${port}/devstoreaccount1;TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`,
        }),
      );

      // The sweep itself (the timer's and the queue trigger's): POST /api/renewals needs the
      // same storage for its run queue, so it would answer 503 here (docs/runs.md).
      const summary = await sweep(getAccountPorts(), silentLogger, { dryRun: true });

      expect(summary.ledger).toBe("unavailable");
      expect(summary.failed).toBe(true);
      expect(summary.problems.join("\n")).toMatch(
        /renewal ledger unavailable.*no answer within the timeout/,
      );
      expect(summary.results.map((r) => [r.certificateName, r.outcome])).toContainEqual([
        "due-ledger-hang",
        "would-renew",
      ]);
      tally.checks += 1;
    } finally {
      for (const socket of sockets) socket.destroy();
      blackHole.close();
    }
  });

  it("the managed identity's token endpoint hangs: 503 naming the timeout", async () => {
    const signals: (AbortSignal | undefined)[] = [];
    await configureApp(
      settingsFor(sim, {
        CERTSCHED_HTTP_TIMEOUT: TIMEOUT,
        CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
      }),
      {
        // A credential that never answers (and, like some, ignores the abort signal).
        credential: {
          getToken: (_scope, options) => {
            signals.push(options?.abortSignal);
            return new Promise(() => {});
          },
        },
      },
    );

    const reply = await call(testConnectivity, get("connectivity"));

    expect(problem(reply, 503).detail).toMatch(
      /Managed identity could not get a token for .*no answer within the timeout/,
    );
    // The credential was told to stop as well (DefaultAzureCredential honours the signal).
    expect(signals.length).toBeGreaterThan(0);
    await expect.poll(() => signals.every((s) => s?.aborted)).toBe(true);
    tally.checks += 1;
  });

  it("the identity provider's port is closed: 503 at once, naming it", async () => {
    await configureApp(
      settingsFor(sim, {
        CERTSCHED_HTTP_TIMEOUT: TIMEOUT,
        CERTSCHED_TOKEN_URL: `http://127.0.0.1:${await closedPort()}/identity`,
      }),
    );
    const reply = await call(testConnectivity, get("connectivity"));
    expect(problem(reply, 503).detail).toMatch(/Identity provider unreachable.*ECONNREFUSED/);
    tally.checks += 1;
  });
});
