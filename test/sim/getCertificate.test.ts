import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../sim/index.js";
import { post, tokens } from "../support/simulator.js";

/*
 * Get Certificate and the v3 renew of a key-vault certificate as the simulator answers them over
 * real HTTP. The spec names Get Certificate without showing it; method, path and authentication
 * follow the vendor's 8.0 client.
 */

const EXPIRY = new Date("2026-12-01T10:00:00.123Z");
const LINKS = { crtUrl: "https://files.example/crt", keyUrl: "https://files.example/key" };

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    certificates: [
      {
        certificateName: "www-contoso-com",
        rootDomain: "contoso.com",
        expiryDate: EXPIRY,
        certificateDownloadUrl: LINKS,
        renewal: "Manual",
        id: 7,
      },
      {
        certificateName: "kv-contoso-com",
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv-certsched",
        expiryDate: EXPIRY,
        id: 8,
      },
      { certificateName: "a/b c", target: "Standalone", expiryDate: EXPIRY, id: 9 },
    ],
  });
});
beforeEach(() => sim.reset());
afterAll(() => sim.close());

const getUrl = (name: string, subscription = sim.options.subscription) =>
  `${sim.baseUrl}/prod/v3/ssl/certificate/subscription/${encodeURIComponent(subscription)}/get/certificatename/${encodeURIComponent(name)}`;
const withKey = (key = sim.options.apiKey) => ({ authorization: `Bearer ${key}` });

describe("GET .../get/certificatename/{certificateName}", () => {
  it("answers 200 with the record as JSON, dates in the service's format", async () => {
    const reply = await post(getUrl("www-contoso-com"), { method: "GET", headers: withKey() });

    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe("application/json; charset=utf-8");
    expect(JSON.parse(reply.text)).toMatchObject({
      certificateName: "www-contoso-com",
      rootDomain: "contoso.com",
      target: "Cloud App Service",
      renewal: "Manual",
      id: 7,
      subscriptionId: 1001,
      expiryDate: "2026-12-01T10:00:00.1230000",
      certificateDownloadUrl: LINKS,
    });
    const [recorded] = sim.requestsFor("get");
    expect(recorded).toMatchObject({ method: "GET", body: "" });
  });

  it("decodes the name as one segment: an encoded '/' and space stay in the name", async () => {
    const reply = await post(getUrl("a/b c"), { method: "GET", headers: withKey() });

    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toMatchObject({
      certificateName: "a/b c",
      target: "Standalone",
    });
  });

  it.each([
    ["an unknown name", () => getUrl("nope"), withKey, 404, "Certificate nope not found"],
    [
      "a wrong API key",
      () => getUrl("www-contoso-com"),
      () => withKey("wrong-key"),
      401,
      undefined,
    ],
    ["no API key", () => getUrl("www-contoso-com"), () => ({}), 401, undefined],
    [
      "another subscription",
      () => getUrl("www-contoso-com", "other-subscription"),
      withKey,
      401,
      undefined,
    ],
  ])("refuses %s in plain text", async (_, url, headers, status, text) => {
    const reply = await post(url(), { method: "GET", headers: headers() });

    expect(reply.status).toBe(status);
    expect(reply.contentType).toBe("text/plain; charset=utf-8");
    if (text !== undefined) expect(reply.text).toBe(text);
  });

  it("answers 405 to a POST there, allowing GET; the other operations still allow POST only", async () => {
    const renewUrl = `${sim.baseUrl}/prod/v3/ssl/certificate/subscription/${sim.options.subscription}/schedule/renew`;
    const postToGet = await request(getUrl("www-contoso-com"), {
      method: "POST",
      headers: { ...withKey(), "content-type": "application/json" },
      body: "{}",
    });
    const getToRenew = await request(renewUrl, { method: "GET", headers: withKey() });

    expect([postToGet.statusCode, postToGet.headers.allow]).toEqual([405, "GET"]);
    expect([getToRenew.statusCode, getToRenew.headers.allow]).toEqual([405, "POST"]);
    await Promise.all([postToGet.body.dump(), getToRenew.body.dump()]);
  });
});

describe("v3 renew with accessTokenKeyVault", () => {
  const renewUrl = () =>
    `${sim.baseUrl}/prod/v3/ssl/certificate/subscription/${sim.options.subscription}/schedule/renew`;

  it("accepts a key-vault certificate's renewal with the vault token, and without it (spec 2.2)", async () => {
    const t = await tokens(sim);
    const before = sim.renewCallsFor("kv-contoso-com");

    const withVault = await post(renewUrl(), {
      headers: withKey(),
      json: {
        certificateName: "kv-contoso-com",
        accessToken: t.management,
        accessTokenKeyVault: t.vault,
      },
    });
    const without = await post(renewUrl(), {
      headers: withKey(),
      json: { certificateName: "kv-contoso-com", accessToken: t.management },
    });

    expect(withVault).toMatchObject({
      status: 200,
      text: "Certificate kv-contoso-com is scheduled for update.",
    });
    expect(without.status).toBe(200);
    expect(sim.renewCallsFor("kv-contoso-com")).toBe(before + 2);
  });

  it("refuses a key-vault certificate's renewal whose vault token is not one (401)", async () => {
    const t = await tokens(sim);
    const before = sim.renewCallsFor("kv-contoso-com");

    const reply = await post(renewUrl(), {
      headers: withKey(),
      // The management token where the vault token belongs: issued, but for the wrong resource.
      json: {
        certificateName: "kv-contoso-com",
        accessToken: t.management,
        accessTokenKeyVault: t.management,
      },
    });

    expect(reply.status).toBe(401);
    expect(reply.text).toMatch(/^Authorization failed: accessTokenKeyVault /);
    expect(sim.renewCallsFor("kv-contoso-com")).toBe(before);
  });
});
