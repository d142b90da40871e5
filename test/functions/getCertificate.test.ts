import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getCertificate } from "../../functions/getCertificate.js";
import { renewCertificate } from "../../functions/renewCertificate.js";
import { type AppHarness, DAY_MS, httpRequest, type Reply, startHarness } from "./harness.js";

/*
 * Issue 16, items 3 and 4 through the HTTP API: GET /api/certificates/{name} (Get Certificate)
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

function get(name: string, query?: Record<string, string>): Promise<Reply> {
  return app.call(
    getCertificate,
    httpRequest({
      method: "GET",
      path: `certificates/${encodeURIComponent(name)}`,
      params: { name },
      ...(query ? { query } : {}),
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
