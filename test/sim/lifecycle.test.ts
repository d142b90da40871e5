import { afterEach, describe, expect, it } from "vitest";
import { DAY_MS } from "../../shared/lib/time.js";
import { type SeedCertificate, type Simulator, startSimulator } from "../../sim/index.js";
import { fakeClock } from "../support/clock.js";
import { createBodies } from "../support/createBodies.js";
import { apiKeyHeader, post, publicUrl, tokens, v3Url } from "../support/simulator.js";

const SERVICE_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}$/;
const REFUSAL = "Renewal refused: DNS zone 'contoso-dns' not found in resource group 'rg-dns'";

let sim: Simulator;
afterEach(() => sim.close());

async function setUp(seeds: SeedCertificate[], completionDelayMs = 0) {
  const clock = fakeClock("2026-05-10T08:00:00.123Z");
  sim = await startSimulator({
    now: clock.now,
    completionDelayMs,
    certificates: seeds,
  });
  const tok = await tokens(sim);
  const resourceRequest = { accessToken: tok.management, accessTokenKeyVault: tok.vault };
  const list = () => post(publicUrl(sim, "renew/getlist"), { json: resourceRequest });
  const listNames = async () => {
    const reply = await list();
    if (reply.status === 404) return [];
    return (JSON.parse(reply.text) as { certificateName: string }[]).map((c) => c.certificateName);
  };
  return { clock, tok, resourceRequest, list, listNames };
}

const days = (n: number) => new Date(Date.parse("2026-05-10T08:00:00.123Z") + n * DAY_MS);

describe("public list", () => {
  it("returns every certificate expiring within 20 days, expired ones included, in full", async () => {
    const { list } = await setUp([
      { certificateName: "expired", expiryDate: days(-1), id: 7 },
      {
        certificateName: "soon",
        expiryDate: days(19.9),
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv",
      },
      { certificateName: "later", expiryDate: days(20) },
    ]);

    const reply = await list();

    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json/);
    const records = JSON.parse(reply.text) as Record<string, unknown>[];
    expect(records.map((r) => r.certificateName)).toEqual(["expired", "soon"]);
    expect(records[0]).toEqual({
      certificateName: "expired",
      rootDomain: null,
      email: null,
      challengeType: "http",
      orderUri: null,
      csrInfo: null,
      issueDate: "2026-02-08T08:00:00.1230000",
      expiryDate: "2026-05-09T08:00:00.1230000",
      target: "Cloud App Service",
      renewal: "Automatic",
      id: 7,
      subscriptionId: 1001,
      password: null,
      pfxString: null,
      certificateDownloadUrl: null,
      cloudSubscriptionId: null,
      dnsZoneResourceGroup: null,
      keyVaultName: null,
      keyVaultCertificateName: null,
      siteId: 0,
    });
    expect(records[1]).toMatchObject({
      id: 8,
      keyVaultName: "kv",
      keyVaultCertificateName: "soon",
    });
    for (const record of records) {
      expect(record.issueDate).toMatch(SERVICE_DATE);
      expect(record.expiryDate).toMatch(SERVICE_DATE);
    }
  });

  it("answers 404 with an empty body when nothing is due", async () => {
    const { list } = await setUp([{ certificateName: "later", expiryDate: days(30) }]);

    expect(await list()).toMatchObject({ status: 404, text: "" });
  });

  it("refuses tokens bound to the wrong resource and an unknown subscription id", async () => {
    const { tok, resourceRequest } = await setUp([]);

    const swapped = await post(publicUrl(sim, "renew/getlist"), {
      json: { accessToken: tok.vault, accessTokenKeyVault: tok.management },
    });
    const noVault = await post(publicUrl(sim, "test"), { json: { accessToken: tok.management } });
    const wrongId = await post(publicUrl(sim, "renew/getlist", "2002"), { json: resourceRequest });

    expect(swapped).toMatchObject({
      status: 401,
      text: "Authorization failed: accessToken was not issued for https://management.core.windows.net/",
    });
    expect(noVault).toMatchObject({
      status: 401,
      text: "Authorization failed: accessTokenKeyVault is missing",
    });
    expect(wrongId.status).toBe(401);
    expect(wrongId.contentType).toMatch(/^text\/plain/);
  });

  it("refuses a token once it has expired on the sim clock", async () => {
    const { clock, list } = await setUp([{ certificateName: "due", expiryDate: days(1) }]);
    clock.advance(3599 * 1000);

    expect(await list()).toMatchObject({
      status: 401,
      text: "Authorization failed: accessToken has expired",
    });
  });
});

describe("public test", () => {
  it("confirms the connection with valid tokens, Authorization header tolerated", async () => {
    const { tok, resourceRequest } = await setUp([]);

    const reply = await post(publicUrl(sim, "test"), {
      json: resourceRequest,
      headers: { authorization: `Bearer ${tok.management}` },
    });

    expect(reply).toEqual({
      status: 200,
      contentType: "text/plain; charset=utf-8",
      text: "Connection successful.",
    });
  });
});

describe("renewal", () => {
  it("schedules a public renewal that completes after the delay and leaves the list", async () => {
    const { clock, resourceRequest, listNames } = await setUp(
      [{ certificateName: "due", expiryDate: days(3) }],
      60_000,
    );
    const certificate = {
      certificateName: "due",
      target: "Cloud App Service",
      renewal: "Automatic",
      id: 1,
      subscriptionId: 1001,
    };

    const reply = await post(publicUrl(sim, "renew"), {
      json: { ...resourceRequest, certificate },
    });
    clock.advance(59_999);
    const beforeCompletion = await listNames();
    clock.advance(1);
    const afterCompletion = await listNames();

    expect(reply).toMatchObject({ status: 200, text: "Certificate due is scheduled for renewal." });
    expect(beforeCompletion).toEqual(["due"]);
    expect(afterCompletion).toEqual([]);
    const [cert] = sim.certificates();
    expect(cert?.issueDate.toISOString()).toBe("2026-05-10T08:01:00.123Z");
    expect(cert?.expiryDate.toISOString()).toBe("2026-08-08T08:01:00.123Z");
    expect(sim.renewCallsFor("due")).toBe(1);
  });

  it("schedules a v3 renewal and counts accepted calls only", async () => {
    const { tok, listNames } = await setUp([
      { certificateName: "due", expiryDate: days(3) },
      { certificateName: "refused", expiryDate: days(3), refuseRenewal: REFUSAL },
    ]);
    const renew = (certificateName: string) =>
      post(v3Url(sim, "renew"), {
        json: { certificateName, accessToken: tok.management },
        headers: apiKeyHeader(sim),
      });

    const accepted = await renew("due");
    const refused = await renew("refused");
    const unknown = await renew("nope");

    expect(accepted).toEqual({
      status: 200,
      contentType: "text/plain; charset=utf-8",
      text: "Certificate due is scheduled for update.",
    });
    expect(refused).toMatchObject({ status: 400, text: REFUSAL });
    expect(unknown).toMatchObject({ status: 400, text: "Certificate nope not found" });
    expect(await listNames()).toEqual(["refused"]);
    expect(sim.renewCallsFor("due")).toBe(1);
    expect(sim.renewCallsFor("refused")).toBe(0);
  });

  it("refuses a public renewal of an unknown id, a contradicting name, or a refused certificate", async () => {
    const { resourceRequest } = await setUp([
      { certificateName: "refused", expiryDate: days(3), refuseRenewal: REFUSAL, id: 5 },
    ]);
    const renew = (certificate: unknown) =>
      post(publicUrl(sim, "renew"), { json: { ...resourceRequest, certificate } });

    expect(await renew({ certificateName: "x", id: 99 })).toMatchObject({
      status: 400,
      text: "Certificate with id 99 not found",
    });
    expect((await renew({ certificateName: "other", id: 5 })).status).toBe(400);
    expect(await renew({ certificateName: "refused", id: 5 })).toMatchObject({
      status: 400,
      text: REFUSAL,
    });
  });

  it("says the certificate name is not defined on a v3 renew without one", async () => {
    const { tok } = await setUp([]);

    const reply = await post(v3Url(sim, "renew"), {
      json: { accessToken: tok.management },
      headers: apiKeyHeader(sim),
    });

    expect(reply).toMatchObject({ status: 400, text: "Certificate name is not defined" });
  });
});

describe("creation", () => {
  it("adds the certificate once the delay has passed, with a new id and 90 days of validity", async () => {
    const { clock, tok } = await setUp(
      [{ certificateName: "old", expiryDate: days(50), id: 41 }],
      5 * 60_000,
    );
    const body = createBodies(tok.management, tok.vault).keyVault;

    const reply = await post(v3Url(sim, "create"), { json: body, headers: apiKeyHeader(sim) });
    const before = sim.certificates().map((c) => c.certificateName);
    clock.advance(5 * 60_000);
    const created = sim.certificates().find((c) => c.certificateName === "kv-dns");

    expect(reply.status).toBe(200);
    expect(before).toEqual(["old"]);
    expect(created).toMatchObject({
      id: 42,
      target: "Cloud Key Vault + DNS",
      challengeType: "dns",
      keyVaultName: "kv-contoso",
      keyVaultCertificateName: "kv-dns",
      dnsZoneResourceGroup: "rg-dns",
      email: "admin@contoso.com",
      password: null,
    });
    expect(created?.issueDate.toISOString()).toBe("2026-05-10T08:05:00.123Z");
    expect(created?.expiryDate.getTime()).toBe(
      Date.parse("2026-05-10T08:05:00.123Z") + 90 * DAY_MS,
    );
  });
});
