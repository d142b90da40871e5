import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificate } from "../../functions/createCertificate.js";
import { listDueCertificates } from "../../functions/listDueCertificates.js";
import { renewCertificate } from "../../functions/renewCertificate.js";
import { renewDueCertificates } from "../../functions/renewDueCertificates.js";
import { runRenewals } from "../../functions/runRenewals.js";
import { testConnectivity } from "../../functions/testConnectivity.js";
import { createSecretClientReader } from "../../shared/adapters/identity/secretClientReader.js";
import { memoryLedger } from "../../shared/core/ports/ledger.js";
import { REDACTED } from "../../shared/lib/redact/redact.js";
import { DAY_MS } from "../../shared/lib/time.js";
import type { Fault, SimOperation, Simulator } from "../../sim/index.js";
import { configureApp, releaseApp } from "../support/app.js";
import { type FakeKeyVault, startFakeKeyVault, stubCredential } from "../support/fakeKeyVault.js";
import { httpRequest, timer } from "../support/invoke.js";
import { type Reply, toReply } from "../support/reply.js";
import { Capture } from "./support/capture.js";
import { settingsFor, startSim } from "./support/staging.js";
import { reportTally } from "./support/tally.js";

/*
 * Secrets: the API key, the client secret, the vault's secret values, every token the identity
 * provider issued and the certificate password must never reach a log line, a response or an
 * error a person reads — also when an upstream echoes them back in an error body.
 */

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

const PASSWORD = "Pfx-Passw0rd-7f3a9c1e";
const CREATE = {
  certificateName: "www-contoso-com",
  rootDomain: "contoso.com",
  email: "ops@contoso.com",
  password: PASSWORD,
  isSAN: false,
  cloudSubscriptionId: "00000000-0000-4000-8000-00000000c0de",
  target: "Cloud Key Vault + DNS",
  challengeType: "dns",
  dnsZoneResourceGroup: "rg-dns",
  keyVaultName: "kv-contoso",
};
/** Tokens nobody registered with certsched still look like tokens. */
const FOREIGN_JWT =
  "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzb21lb25lLWVsc2UifQ.c2lnbmF0dXJlLW9mLWFub3RoZXItY2FsbGVy";
const FOREIGN_BEARER = "Bearer Zm9yZWlnbi10b2tlbi1uZXZlci1oYW5kZWQtdG8tdXM";

const capture = new Capture();
const tally = { cases: 0, echoesRedacted: 0, textsScanned: 0, secretsWatched: 0, leaks: 0 };
let sim: Simulator;

beforeAll(async () => {
  const now = Date.now();
  sim = await startSim({
    certificates: [
      { certificateName: "due-a", expiryDate: new Date(now + 3 * DAY_MS) },
      {
        certificateName: "due-b",
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv",
        expiryDate: new Date(now + 6 * DAY_MS),
      },
    ],
  });
  capture.watch(sim);
  capture.watchValues(PASSWORD, FOREIGN_JWT, FOREIGN_BEARER.slice("Bearer ".length));
});

afterAll(async () => {
  await releaseApp();
  await sim.close();
  const leaks = capture.leaks();
  reportTally("secrets", {
    ...tally,
    textsScanned: capture.seen.length,
    secretsWatched: capture.secrets().length,
    leaks: leaks.length,
  });
});

async function call(handler: Handler, request: HttpRequest): Promise<Reply> {
  const reply = toReply(await handler(request, capture.context(handler.name)));
  capture.add("response", reply.text);
  return reply;
}

const get = (path: string) => httpRequest({ method: "GET", path });

/** The tokens certsched is holding right now, read from what reached the simulator. */
function tokensInUse(): { management: string; vault: string } {
  const last = sim.requests.filter((r) => r.operation === "test").at(-1);
  const body = JSON.parse(last?.body ?? "{}") as {
    accessToken: string;
    accessTokenKeyVault: string;
  };
  expect(last?.headers.authorization).toBeUndefined();
  return { management: body.accessToken, vault: body.accessTokenKeyVault };
}

/**
 * An upstream error text quoting everything it should never have been sent back. The
 * certificate password only reaches the create operation, so only create may echo it.
 */
function echo(tokens: { management: string; vault: string }, op: SimOperation): string {
  return [
    `invalid token ${tokens.management}`,
    `vault token ${tokens.vault}`,
    `api key ${sim.options.apiKey}`,
    `client_secret=${sim.options.clientSecret}`,
    ...(op === "create" ? [`password ${PASSWORD}`] : []),
    `other caller ${FOREIGN_JWT} ${FOREIGN_BEARER}`,
  ].join("; ");
}

/** Nothing watched appears anywhere captured so far. */
function expectClean(): void {
  expect(capture.leaks()).toEqual([]);
}

interface EchoCase {
  readonly name: string;
  readonly op: SimOperation;
  fault(text: string): Fault;
  run(): Promise<{ shown: string[] }>;
}

const reply = async (handler: Handler, request: HttpRequest) => {
  const r = await call(handler, request);
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(r.headers["content-type"]).toBe("application/problem+json");
  return { shown: [r.text] };
};

const ECHO_CASES: EchoCase[] = [
  {
    name: "public renew answers 400 quoting the tokens (runRenewals)",
    op: "publicRenew",
    fault: (text) => ({ status: 400, body: text, times: 10 }),
    run: async () => {
      // ?wait: the queued run is swept in this process (no storage here) and answered finished.
      const r = await call(runRenewals, httpRequest({ path: "renewals", rawQuery: "wait=30" }));
      expect(r.status).toBe(200);
      const details = (r.body as { results: { outcome: string; detail: string }[] }).results;
      expect(details.map((d) => d.outcome)).toEqual(["failed", "failed"]);
      return { shown: [r.text, ...details.map((d) => d.detail)] };
    },
  },
  {
    name: "public renew answers 400 quoting the tokens (the timer)",
    op: "publicRenew",
    fault: (text) => ({ status: 400, body: text, times: 10 }),
    run: async () => {
      const context = capture.context("renewDueCertificates");
      const error = await renewDueCertificates(timer(), context).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      capture.addError(error);
      return {
        shown: capture.lines("renewDueCertificates").filter((l) => l.includes("answered 400")),
      };
    },
  },
  {
    name: "v3 renew answers 400 quoting the API key (renewCertificate)",
    op: "renew",
    fault: (text) => ({ status: 400, body: text }),
    run: () =>
      reply(
        renewCertificate,
        httpRequest({ path: "certificates/due-a/renew", params: { name: "due-a" } }),
      ),
  },
  {
    name: "create answers 400 quoting the certificate password (createCertificate)",
    op: "create",
    fault: (text) => ({ status: 400, body: text }),
    run: () =>
      reply(
        createCertificate,
        httpRequest({
          path: "certificates",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(CREATE),
        }),
      ),
  },
  {
    name: "list answers 401 quoting the tokens (listDueCertificates)",
    op: "list",
    // Twice: a first 401 is sent once more with fresh tokens (a 401 may mean a revoked token).
    fault: (text) => ({ status: 401, body: text, times: 2 }),
    run: () => reply(listDueCertificates, get("certificates/due")),
  },
  {
    name: "test answers a gateway's HTML page whose title quotes a token (testConnectivity)",
    op: "test",
    fault: (text) => ({
      status: 502,
      headers: { "content-type": "text/html" },
      body: `<html><head><title>${text}</title></head><body>${text}</body></html>`,
      times: 10,
    }),
    run: () => reply(testConnectivity, get("connectivity")),
  },
];

describe("an upstream that echoes secrets in its error body", () => {
  it.for(ECHO_CASES)("$name: redacted before it is logged or returned", async (c) => {
    await configureApp(settingsFor(sim), { ledger: memoryLedger() });
    sim.reset();
    // Tokens are issued and cached first, so the faulted call carries the very ones echoed.
    expect((await call(testConnectivity, get("connectivity"))).status).toBe(200);
    const text = echo(tokensInUse(), c.op);
    sim.inject(c.op, c.fault(text));

    const { shown } = await c.run();

    expect(sim.requestsFor(c.op).length).toBeGreaterThan(0);
    expect(shown.length).toBeGreaterThan(0);
    // The echo went through redaction (it was not merely dropped): the marker is there.
    for (const s of shown) expect(s).toContain(REDACTED);
    tally.echoesRedacted += shown.length;
    expectClean();
    tally.cases += 1;
  });

  it("the token endpoint answers 400 in plain text quoting the client secret", async () => {
    await configureApp(settingsFor(sim));
    sim.reset();
    sim.inject("token", {
      status: 400,
      body: `bad request: client_secret=${sim.options.clientSecret} api key ${sim.options.apiKey}`,
      times: 10,
    });
    const r = await call(testConnectivity, get("connectivity"));
    expect(r.status).toBe(503);
    expect((r.body as { detail: string }).detail).toMatch(
      /Identity provider answered 400 for .*\[REDACTED\]/,
    );
    tally.echoesRedacted += 1;
    expectClean();
    tally.cases += 1;
  });

  it("the token endpoint's AADSTS error quoting the secret is reduced to its code", async () => {
    await configureApp(settingsFor(sim));
    sim.reset();
    sim.inject("token", {
      status: 401,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        error: "invalid_client",
        error_description: `AADSTS7000215: Invalid client secret provided: ${sim.options.clientSecret}`,
        error_codes: [7000215],
      }),
      times: 10,
    });
    const r = await call(testConnectivity, get("connectivity"));
    expect(r.status).toBe(502);
    expect((r.body as { detail: string }).detail).toMatch(/AADSTS7000215 \(invalid client secret/);
    expectClean();
    tally.cases += 1;
  });
});

describe("a whole day's work through every function", () => {
  let vault: FakeKeyVault;

  afterAll(() => vault?.close());

  it("leaks nothing, with the secrets read from Key Vault", async () => {
    vault = await startFakeKeyVault({
      secrets: {
        "certsched-api-key": sim.options.apiKey,
        "certsched-client-secret": sim.options.clientSecret,
      },
    });
    const settings: Record<string, string> = {
      ...settingsFor(sim),
      CERTSCHED_KEY_VAULT_URL: vault.url,
    };
    delete settings.CERTSCHED_API_KEY;
    delete settings.CERTSCHED_CLIENT_SECRET;
    await configureApp(settings, {
      ledger: memoryLedger(),
      createSecretReader: (url) =>
        createSecretClientReader(url, stubCredential, vault.clientOptions),
    });
    sim.reset();

    const answers = [
      await call(testConnectivity, get("connectivity")),
      await call(listDueCertificates, get("certificates/due")),
      await call(
        createCertificate,
        httpRequest({
          path: "certificates",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(CREATE),
        }),
      ),
      await call(
        renewCertificate,
        httpRequest({ path: "certificates/due-a/renew", params: { name: "due-a" } }),
      ),
      await call(runRenewals, httpRequest({ path: "renewals", rawQuery: "dryRun=true&wait=30" })),
      await call(runRenewals, httpRequest({ path: "renewals", rawQuery: "wait=30" })),
    ];
    await renewDueCertificates(timer(), capture.context("renewDueCertificates"));

    expect(answers.map((a) => a.status)).toEqual([200, 200, 202, 202, 200, 200]);
    // The vault was really used, and the secrets really went out (to the right places only).
    expect(vault.reads("certsched-client-secret")).toBeGreaterThan(0);
    expect(vault.reads("certsched-api-key")).toBeGreaterThan(0);
    expect(sim.requestsFor("create")[0]?.headers.authorization).toBe(
      `Bearer ${sim.options.apiKey}`,
    );
    expect(sim.requestsFor("create")[0]?.body).toContain(PASSWORD);
    expect(sim.issuedTokens().length).toBeGreaterThan(0);
    expectClean();
    tally.cases += 1;
  });
});
