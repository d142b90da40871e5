import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listDueCertificates } from "../../../functions/listDueCertificates.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { formatServiceDate, toCertificateRecord } from "../../../sim/index.js";
import { type AppHarness, type Reply, startHarness } from "../../support/app.js";
import { fakeClock } from "../../support/clock.js";
import { httpRequest } from "../../support/invoke.js";

const clock = fakeClock("2026-03-01T03:00:00.000Z");
const inDays = (days: number) => new Date(clock.now().getTime() + days * DAY_MS);
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let app: AppHarness;

beforeAll(async () => {
  app = await startHarness({
    now: clock.now,
    certificates: [
      {
        certificateName: "www-contoso-com",
        rootDomain: "contoso.com",
        expiryDate: inDays(5),
        email: "admin@contoso.com",
      },
      {
        certificateName: "vault-fabrikam-com",
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv-fabrikam",
        dnsZoneResourceGroup: "rg-dns",
        // Half a day past an expiry boundary: daysLeft rounds down.
        expiryDate: new Date(inDays(-1).getTime() - 12 * HOUR_MS),
      },
      { certificateName: "blog-contoso-com", expiryDate: inDays(45) },
    ],
  });
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure({}, { now: clock.now });
});
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

function list(): Promise<Reply> {
  return app.call(listDueCertificates, httpRequest({ method: "GET", path: "certificates/due" }));
}

describe("listDueCertificates", () => {
  it("answers 200 with the due certificates, ISO-8601 UTC dates and days left", async () => {
    const reply = await list();

    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toMatch(/^application\/json/);
    const { certificates } = reply.body as { certificates: Record<string, unknown>[] };
    expect(certificates.map((c) => c.certificateName)).toEqual([
      "www-contoso-com",
      "vault-fabrikam-com",
    ]);
    const [www, vault] = certificates;
    expect(www).toMatchObject({
      rootDomain: "contoso.com",
      target: "Cloud App Service",
      renewal: "Automatic",
      expiryDate: inDays(5).toISOString(),
      daysLeft: 5,
    });
    expect(vault).toMatchObject({
      target: "Cloud Key Vault + DNS",
      keyVaultName: "kv-fabrikam",
      keyVaultCertificateName: "vault-fabrikam-com",
      daysLeft: -2,
    });
    for (const c of certificates) {
      expect(c.issueDate).toMatch(ISO_UTC);
      expect(c.expiryDate).toMatch(ISO_UTC);
      expect(c).not.toHaveProperty("password");
      expect(c).not.toHaveProperty("pfxString");
    }
  });

  it("asked the public list with both tokens in the body and the subscription id in the path", async () => {
    await list();

    const [sent, ...more] = app.sim.requestsFor("list");
    expect(more).toEqual([]);
    expect(sent?.path).toBe(
      `/public/v1/subscription/${app.sim.options.subscriptionId}/public/certificate/renew/getlist`,
    );
    const body = JSON.parse(sent?.body ?? "{}") as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(["accessToken", "accessTokenKeyVault"]);
    expect(app.sim.issuedTokens()).toEqual(
      expect.arrayContaining([body.accessToken, body.accessTokenKeyVault]),
    );
  });

  it("drops password and pfxString even when the service sends them", async () => {
    const [cert] = app.sim.certificates();
    if (!cert) throw new Error("the simulator lost its certificates");
    const password = "pfx-password-from-upstream";
    const pfxString =
      "MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCCChgEggoUMIIKEDCCBg8GCSqGSIb3DQEHBqCCBgAwggX8";
    app.sim.inject("list", {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify([{ ...toCertificateRecord(cert), password, pfxString }]),
    });

    const reply = await list();

    expect(reply.status).toBe(200);
    const { certificates } = reply.body as { certificates: Record<string, unknown>[] };
    expect(certificates).toHaveLength(1);
    expect(certificates[0]).not.toHaveProperty("password");
    expect(certificates[0]).not.toHaveProperty("pfxString");
    expect(reply.text).not.toContain(password);
    expect(reply.text).not.toContain(pfxString);
    expect(app.logs.map((l) => l.message).join("\n")).not.toContain(pfxString);
  });

  it("reports records it cannot use next to the good ones", async () => {
    const [cert] = app.sim.certificates();
    if (!cert) throw new Error("the simulator lost its certificates");
    const good = toCertificateRecord(cert);
    app.sim.inject("list", {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        good,
        { ...good, id: 77, certificateName: "bad-date", expiryDate: "next tuesday" },
      ]),
    });

    const reply = await list();

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      certificates: [{ certificateName: cert.certificateName }],
      rejected: [
        { index: 1, certificateName: "bad-date", id: 77, problems: [{ name: "expiryDate" }] },
      ],
    });
  });

  it("reads the service's zone-less dates as UTC", async () => {
    const [cert] = app.sim.certificates();
    if (!cert) throw new Error("the simulator lost its certificates");
    const expiry = new Date("2026-03-10T23:30:00.000Z");
    app.sim.inject("list", {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { ...toCertificateRecord(cert), expiryDate: formatServiceDate(expiry) },
      ]),
    });

    const reply = await list();

    const { certificates } = reply.body as { certificates: Record<string, unknown>[] };
    expect(certificates[0]?.expiryDate).toBe("2026-03-10T23:30:00.000Z");
    expect(certificates[0]?.daysLeft).toBe(9);
  });

  it("answers 200 with an empty list when the service answers 404", async () => {
    app.sim.inject("list", { status: 404 });

    const reply = await list();

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ certificates: [] });
  });
});
