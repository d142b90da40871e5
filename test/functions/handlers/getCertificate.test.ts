import { randomInt } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { getCertificate } from "../../../functions/getCertificate.js";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { tableHistory } from "../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../shared/adapters/storage/tableInventory.js";
import { getAccountPorts } from "../../../shared/app/services.js";
import { memoryHistory } from "../../../shared/core/ports/history.js";
import { READER } from "../../../shared/edge/auth/roles.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import {
  type AppHarness,
  closedPort,
  type Reply,
  STACK_FRAME,
  startHarness,
} from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";
import { principalHeader } from "../../support/principals.js";

/*
 * Through the HTTP API: GET /api/certificates/{name} (Get Certificate)
 * and POST /api/certificates/{name}/renew looking the target up first, so a key-vault
 * certificate's v3 renewal carries the vault token.
 */

const PASSWORD = "pfx-password-41a9e7";
const PFX = "MIIKpfx-private-key-material-77c1";
const LINKS = {
  crtUrl: "https://files.example/www/crt",
  fullchainCrtUrl: "https://files.example/www/fullchain.crt",
  keyUrl: "https://files.example/www/key",
  pfxUrl: "https://files.example/www/pfx",
};
const EXPIRY = new Date(Date.now() + 5.5 * DAY_MS);

let app: AppHarness;

beforeAll(async () => {
  app = await startHarness({
    certificates: [
      {
        certificateName: "www-contoso-com",
        rootDomain: "contoso.com",
        expiryDate: EXPIRY,
        certificateDownloadUrl: LINKS,
        password: PASSWORD,
        pfxString: PFX,
        renewal: "Manual",
      },
      {
        certificateName: "kv-contoso-com",
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv-certsched",
        expiryDate: EXPIRY,
      },
    ],
  });
  app.addSecrets(PASSWORD, PFX, LINKS.keyUrl, LINKS.pfxUrl);
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure();
});
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

function get(
  name: string,
  query?: Record<string, string>,
  headers?: Record<string, string>,
): Promise<Reply> {
  return app.call(
    getCertificate,
    httpRequest({
      method: "GET",
      path: `certificates/${encodeURIComponent(name)}`,
      params: { name },
      ...(query ? { query } : {}),
      ...(headers ? { headers } : {}),
    }),
  );
}

function renew(name: string): Promise<Reply> {
  return app.call(
    renewCertificate,
    httpRequest({ path: `certificates/${encodeURIComponent(name)}/renew`, params: { name } }),
  );
}

const renewBody = () =>
  JSON.parse(app.sim.requestsFor("renew").at(-1)?.body ?? "{}") as Record<string, string>;

describe("GET /api/certificates/{name}", () => {
  it("answers 200 with the certificate as the due list shows it, never its secrets", async () => {
    const reply = await get("www-contoso-com");

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      certificateName: "www-contoso-com",
      target: "Cloud App Service",
      renewal: "Manual",
      rootDomain: "contoso.com",
      expiryDate: EXPIRY.toISOString(),
      daysLeft: 5,
      certificateDownloadUrl: { crtUrl: LINKS.crtUrl, fullchainCrtUrl: LINKS.fullchainCrtUrl },
      // The status view, from the service's record alone when no storage is set.
      service: { answer: "found" },
      status: { status: "expiring", critical: true, ledger: null, verification: null },
      history: { events: [] },
    });
    for (const secret of [PASSWORD, PFX, LINKS.keyUrl, LINKS.pfxUrl]) {
      expect(reply.text).not.toContain(secret);
    }
    expect(reply.body).not.toHaveProperty("password");
    expect(reply.body).not.toHaveProperty("pfxString");
    const [sent, ...more] = app.sim.requestsFor("get");
    expect(more).toEqual([]);
    expect(sent?.method).toBe("GET");
    expect(sent?.headers.authorization).toBe(`Bearer ${app.sim.options.apiKey}`);
  });

  it("answers 404 naming the certificate when the service knows no such name", async () => {
    const reply = await get("nope");

    expect(reply.status).toBe(404);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({
      status: 404,
      code: "UPSTREAM_REJECTED",
      title: "No such certificate",
      detail:
        "get certificate failed: the service answered 404 (no certificate named nope): Certificate nope not found",
    });
  });

  it("refuses a name no URL path can carry (400 naming certificateName), sending nothing", async () => {
    const reply = await get("..");

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      code: "VALIDATION_FAILED",
      errors: [{ name: "certificateName", message: expect.stringContaining('"." or ".."') }],
    });
    expect(app.sim.requestsFor("get")).toEqual([]);
  });

  it.each([
    ["a'b", 404],
    ["a#b?c=d", 404],
    ["a/b", 404],
    ["%2e%2e", 404],
    ["javascript:alert(1)", 404],
    ["<script>x</script>", 404],
    ["\u202eevil", 404],
    [".", 400],
    ["", 400],
    ["x".repeat(1025), 400],
  ])("a hostile name %j: %i problem+json, never a 500", async (name, status) => {
    const reply = await get(name);

    expect(reply.status).toBe(status);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.text).not.toMatch(STACK_FRAME);
    // Only a name a URL path can carry is ever asked about, as one encoded segment.
    const sent = app.sim
      .requestsFor("get")
      .map((r) => decodeURIComponent(r.path.split("/").at(-1) ?? ""));
    expect(sent).toEqual(status === 404 ? [name] : []);
  });

  it("refuses a query parameter (400), sending nothing to the service", async () => {
    const reply = await get("www-contoso-com", { verbose: "1" });

    expect(reply.status).toBe(400);
    expect(app.sim.requestsFor("get")).toEqual([]);
  });

  it("answers 503 naming CERTSCHED_SUBSCRIPTION when it is missing", async () => {
    await app.configure({ CERTSCHED_SUBSCRIPTION: undefined, CERTSCHED_SUBSCRIPTION_ID: "1001" });

    const reply = await get("www-contoso-com");

    expect(reply.status).toBe(503);
    expect(reply.text).toContain("CERTSCHED_SUBSCRIPTION");
    expect(app.sim.requestsFor("get")).toEqual([]);
  });
});

describe("POST /api/certificates/{name}/renew looks the target up first", () => {
  it("renews a key-vault certificate with accessTokenKeyVault", async () => {
    const before = app.sim.renewCallsFor("kv-contoso-com");
    const reply = await renew("kv-contoso-com");

    expect(reply.status).toBe(202);
    expect(app.sim.requestsFor("get")).toHaveLength(1);
    expect(Object.keys(renewBody()).sort()).toEqual([
      "accessToken",
      "accessTokenKeyVault",
      "certificateName",
    ]);
    const issued = app.sim.issuedTokens();
    expect(issued).toContain(renewBody().accessTokenKeyVault);
    expect(renewBody().accessTokenKeyVault).not.toBe(renewBody().accessToken);
    expect(app.sim.renewCallsFor("kv-contoso-com")).toBe(before + 1);
  });

  it("renews an app-service certificate with the spec's two fields", async () => {
    const reply = await renew("www-contoso-com");

    expect(reply.status).toBe(202);
    expect(Object.keys(renewBody()).sort()).toEqual(["accessToken", "certificateName"]);
  });

  it("when Get Certificate fails, renews with the spec's two fields and says so in a log line", async () => {
    app.sim.inject("get", { status: 500, body: "busy", times: 4 });
    const before = app.sim.renewCallsFor("kv-contoso-com");
    const logged = app.logs.length;

    const reply = await renew("kv-contoso-com");

    expect(reply.status).toBe(202);
    expect(Object.keys(renewBody()).sort()).toEqual(["accessToken", "certificateName"]);
    expect(app.sim.renewCallsFor("kv-contoso-com")).toBe(before + 1);
    const warned = app.logs
      .slice(logged)
      .filter((l) => l.level === "warning")
      .map((l) => l.message);
    // The line's facts, not its wording: which certificate, that Get failed and why, and
    // that the renewal went out without the vault token.
    expect(warned).toEqual([
      expect.stringMatching(
        /^certsched: could not look up (the target of )?kv-contoso-com with Get Certificate, so its renewal is sent without the vault token .*get certificate failed: the service answered 500/,
      ),
    ]);
  });
});

/*
 * The route merged with the status view and the recent history, over the test run's
 * Azurite (names and ids of their own: other files share its tables).
 */
describe("GET /api/certificates/{name} with status and history", () => {
  const unique = () => `status-${randomInt(1e9)}`;
  /** A certificate of the simulator's, under a name and id no other test uses. */
  const add = (expiryDate = EXPIRY) =>
    app.sim.addCertificate({
      certificateName: unique(),
      id: randomInt(2_000_000, 9_000_000),
      rootDomain: "contoso.com",
      expiryDate,
    });

  beforeEach(async () => {
    await app.configure({ AzureWebJobsStorage: inject("azuriteTableConnectionString") });
  });
  afterEach(() => {
    delete process.env.WEBSITE_AUTH_ENABLED;
  });

  interface Detail {
    certificateName: string;
    expiryDate?: string;
    service: Record<string, unknown>;
    status: {
      status: string;
      expiry: { service: string | null };
      ledger: Record<string, unknown> | null;
    };
    history: { since: string; events: { event: string; by?: string; trigger: string }[] };
  }

  it("answers the record, the service's word, the status and the history of a renewal by hand", async () => {
    const cert = add();
    expect((await renew(cert.certificateName)).status).toBe(202);

    const before = Date.now();
    const reply = await get(cert.certificateName);
    const after = Date.now();

    expect(reply.status).toBe(200);
    const body = reply.body as Detail;
    // The simulator completed the renewal at once: the record has the new expiry, and the
    // ledger's row (of the old one) is shown but no longer decides the word.
    const renewed = app.sim.certificates().find((c) => c.id === cert.id);
    expect(renewed?.expiryDate.getTime()).toBeGreaterThan(EXPIRY.getTime());
    expect(body).toMatchObject({
      certificateName: cert.certificateName,
      id: cert.id,
      expiryDate: renewed?.expiryDate.toISOString(),
      service: { answer: "found" },
      status: {
        certificateName: cert.certificateName,
        status: "ok",
        expiry: { service: renewed?.expiryDate.toISOString(), served: null },
        ledger: { outcome: "renewal-scheduled", reason: "ManualRequest", current: false },
        inventory: { source: "get", rootDomain: "contoso.com" },
      },
    });
    expect(body.history.events.map((e) => [e.event, e.trigger, e.by])).toEqual([
      ["renewal-scheduled", "http", undefined],
      ["manual-request", "http", "function-key"],
    ]);
    // The last 30 days as of the request (the clock read while it was answered).
    expect(Date.parse(body.history.since)).toBeGreaterThanOrEqual(before - 30 * DAY_MS);
    expect(Date.parse(body.history.since)).toBeLessThanOrEqual(after - 30 * DAY_MS);
  });

  it("a renewal by hand carries what the row last saw served; the detail shows each renewal's receipt", async () => {
    const connectionString = inject("azuriteTableConnectionString");
    const inventory = tableInventory({ connectionString });
    const history = tableHistory({ connectionString });
    const cert = add();
    const OLD = "AB12CD34".repeat(8);
    const NEW = "EF34AB56".repeat(8);
    const seen = new Date(Date.now() - 60_000);
    await inventory.upsert([
      { certificateName: cert.certificateName, source: "due-list", seenAt: seen },
    ]);
    await inventory.recordVerification(cert.certificateName, {
      at: seen,
      status: "expiring",
      source: "tls",
      domain: "contoso.com",
      detail: "5 days left",
      thumbprint: OLD,
      serial: "0A1B",
      servedNotAfter: new Date("2026-12-01T00:00:00.000Z"),
    });
    expect((await renew(cert.certificateName)).status).toBe(202);

    const accepted = (await get(cert.certificateName)).body as {
      history: {
        events: { event: string; before?: { thumbprint: string } }[];
        receipts: unknown[];
      };
    };
    const landedAt = new Date();
    await history.append([
      {
        at: landedAt,
        certificateName: cert.certificateName,
        event: "landed",
        trigger: "timer",
        runId: "verify-1",
        reason: "ok",
        detail: "the served certificate changed",
        before: { thumbprint: OLD, serial: "0A1B", notAfter: new Date("2026-12-01T00:00:00.000Z") },
        after: { thumbprint: NEW, serial: "04", notAfter: new Date("2027-03-01T00:00:00.000Z") },
      },
    ]);
    const landed = (await get(cert.certificateName)).body as typeof accepted;

    const scheduled = accepted.history.events.find((e) => e.event === "renewal-scheduled");
    expect(scheduled?.before?.thumbprint).toBe(OLD);
    expect(accepted.history.receipts).toEqual([
      {
        acceptedAt: expect.any(String),
        before: { thumbprint: OLD, serial: "0A1B", notAfter: "2026-12-01T00:00:00.000Z" },
        text: expect.stringMatching(
          /^served certificate has not changed since the renewal was accepted at \S+Z \(still AB12CD34AB12CD34…, expires 2026-12-01T00:00:00Z\)$/,
        ),
      },
    ]);
    expect(landed.history.receipts).toEqual([
      {
        acceptedAt: expect.any(String),
        before: { thumbprint: OLD, serial: "0A1B", notAfter: "2026-12-01T00:00:00.000Z" },
        after: { thumbprint: NEW, serial: "04", notAfter: "2027-03-01T00:00:00.000Z" },
        changedAt: landedAt.toISOString(),
        text: `served certificate changed from AB12CD34AB12CD34… (expires 2026-12-01T00:00:00Z) to EF34AB56EF34AB56… (expires 2027-03-01T00:00:00Z) at ${landedAt.toISOString().replace(/\.000Z$/, "Z")}`,
      },
    ]);
  });

  it("still answers the status when the service fails, saying so in `service` (never a 500)", async () => {
    const cert = add();
    expect((await renew(cert.certificateName)).status).toBe(202);
    app.sim.inject("get", { status: 500, body: "busy", times: 4 });

    const reply = await get(cert.certificateName);

    expect(reply.status).toBe(200);
    const body = reply.body as Detail;
    expect(body).not.toHaveProperty("expiryDate");
    expect(body.service).toEqual({
      answer: "failed",
      code: "UPSTREAM_FAILED",
      status: 500,
      detail: expect.stringContaining("the service answered 500"),
    });
    // Known from the ledger alone: the renewal it holds is the latest word.
    expect(body.status).toMatchObject({
      status: "pending",
      ledger: { outcome: "renewal-scheduled", current: true },
    });
    expect(body.history.events.map((e) => e.event)).toContain("manual-request");
  });

  it("answers a name the service does not know but the inventory does, with the service's 404 in `service`", async () => {
    const name = unique();
    await getAccountPorts().inventory.upsert([
      { certificateName: name, source: "watch", seenAt: new Date() },
    ]);

    const reply = await get(name);

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      account: "default",
      certificateName: name,
      service: {
        answer: "not-found",
        code: "UPSTREAM_REJECTED",
        status: 404,
        detail: `get certificate failed: the service answered 404 (no certificate named ${name}): Certificate ${name} not found`,
      },
      status: expect.objectContaining({ certificateName: name, status: "unknown", ledger: null }),
      history: { since: expect.any(String), events: [], receipts: [] },
    });
  });

  it("storage that cannot be read: the service's record and its word, the storage named", async () => {
    const port = await closedPort();
    const down = inject("azuriteTableConnectionString").replace(
      /(TableEndpoint=http:\/\/127\.0\.0\.1:)\d+/,
      `$1${port}`,
    );
    await app.configure({ AzureWebJobsStorage: down });
    const cert = add();

    const reply = await get(cert.certificateName);

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      certificateName: cert.certificateName,
      service: { answer: "found" },
      status: { status: "expiring", ledger: null, expiry: { serviceDaysLeft: 5 } },
      history: { events: [], unavailable: expect.stringContaining("run history: cannot read") },
      invalid: [expect.stringMatching(/cannot read table certsched(renewals|inventory)/)],
    });
  });

  it("never answers a secret a history row holds (rows are input: redacted when read, too)", async () => {
    const cert = add();
    const { apiKey, clientSecret } = app.sim.options;
    await getAccountPorts().history.append([
      {
        at: new Date(),
        certificateName: cert.certificateName,
        id: cert.id,
        event: "failed",
        trigger: "http",
        runId: "planted-run",
        by: `entra:${clientSecret} (oid)`,
        reason: "ManualRequest",
        detail: `the service echoed Bearer ${apiKey}`,
        status: 401,
        error: "UPSTREAM_REJECTED",
      },
    ]);

    const reply = await get(cert.certificateName);

    expect(reply.status).toBe(200);
    const body = reply.body as Detail & { history: { events: { detail?: string }[] } };
    expect(body.history.events).toEqual([
      expect.objectContaining({
        event: "failed",
        by: "entra:[REDACTED] (oid)",
        detail: "the service echoed Bearer [REDACTED]",
      }),
    ]);
    expect(app.leaks([reply.text])).toEqual([]);
  });

  it("answers 404 problem+json for a name unknown everywhere", async () => {
    const name = unique();

    const reply = await get(name);

    expect(reply.status).toBe(404);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({ status: 404, title: "No such certificate" });
  });

  it("answers the service's failure as before for a name nobody else knows", async () => {
    app.sim.inject("get", { status: 503, body: "down", times: 4 });

    const reply = await get(unique());

    expect(reply.status).toBe(503);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.headers["retry-after"]).toBe("60");
  });

  it("behind Easy Auth: refuses a caller without a role (403) before asking the service", async () => {
    process.env.WEBSITE_AUTH_ENABLED = "True";
    const cert = add();

    const refused = await get(cert.certificateName, undefined, {
      "x-ms-client-principal": principalHeader({ roles: [] }),
    });
    const reader = await get(cert.certificateName, undefined, {
      "x-ms-client-principal": principalHeader({ roles: [READER] }),
    });

    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "FORBIDDEN" });
    expect(reader.status).toBe(200);
    expect(app.sim.requestsFor("get")).toHaveLength(1);
  });
});

describe("GET /api/certificates/{name} and the request budget", () => {
  it("asks the service below 80 % of CERTSCHED_SERVICE_QUOTA and not from 80 % on: reads never spend what renewals need", async () => {
    const history = memoryHistory();
    const at = new Date();
    // 3 of 5 used: 60 %, below the line.
    await history.recordRequests(
      [1, 2, 3].map(() => ({ at, operation: "list", trigger: "timer" as const })),
    );
    await app.configure({ CERTSCHED_SERVICE_QUOTA: "5/7d" }, { history });

    const asked = await get("www-contoso-com");
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ service: { answer: "found" } });
    expect(app.sim.requestsFor("get")).toHaveLength(1);

    // That Get was the fourth request: exactly 80 % now, so the next read is answered from storage.
    const kept = await get("www-contoso-com");
    expect(app.sim.requestsFor("get")).toHaveLength(1);
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({
      certificateName: "www-contoso-com",
      service: { answer: "not-asked" },
      status: { status: "unknown" },
    });
    expect(JSON.stringify(kept.body)).toContain("CERTSCHED_SERVICE_QUOTA 5/7d is 4 used");
    expect(await history.requestsSince(new Date(at.getTime() - 1))).toBe(4);
  });

  it("asks as before with no quota set, however many requests were sent", async () => {
    const history = memoryHistory();
    const at = new Date();
    await history.recordRequests(
      Array.from({ length: 500 }, () => ({ at, operation: "list", trigger: "timer" as const })),
    );
    await app.configure({}, { history });
    const reply = await get("www-contoso-com");
    expect(reply.body).toMatchObject({ service: { answer: "found" } });
    expect(app.sim.requestsFor("get")).toHaveLength(1);
  });
});
