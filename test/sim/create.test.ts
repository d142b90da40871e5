import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../sim/index.js";
import { type CreateBodies, createBodies } from "../support/createBodies.js";
import { apiKeyHeader, post, tokens, v3Url } from "../support/simulator.js";

let sim: Simulator;
let bodies: CreateBodies;

beforeAll(async () => {
  sim = await startSimulator();
  const { management, vault } = await tokens(sim);
  bodies = createBodies(management, vault);
});
afterAll(() => sim.close());

function create(body: unknown) {
  return post(v3Url(sim, "create"), { json: body, headers: apiKeyHeader(sim) });
}

type Case = keyof CreateBodies;
type Body = Record<string, unknown>;

describe("v3 create: field sets of spec 2.1", () => {
  it.each<Case>(["appServiceHttp", "appServiceDns", "appServiceSlot", "keyVault"])(
    "accepts a valid %s request",
    async (name) => {
      const body = { ...bodies[name], unknownExtra: "ignored" };

      const reply = await create(body);

      expect(reply).toEqual({
        status: 200,
        contentType: "text/plain; charset=utf-8",
        text: `Certificate ${body.certificateName} is scheduled for creation.`,
      });
    },
  );

  const violations: [string, Case, (b: Body) => void, string][] = [
    ["missing rootDomain", "appServiceHttp", (b) => delete b.rootDomain, "rootDomain is required"],
    ["empty email", "appServiceHttp", (b) => (b.email = ""), "email must not be empty"],
    ["missing password", "keyVault", (b) => delete b.password, "password is required"],
    [
      "numeric cloudSubscriptionId",
      "appServiceDns",
      (b) => (b.cloudSubscriptionId = 7),
      "cloudSubscriptionId must be a string",
    ],
    [
      "missing accessToken",
      "appServiceHttp",
      (b) => delete b.accessToken,
      "accessToken is required",
    ],
    [
      "unknown challengeType",
      "appServiceHttp",
      (b) => (b.challengeType = "tls-alpn"),
      "challengeType",
    ],
    ["misspelt target", "appServiceHttp", (b) => (b.target = "Cloud App service"), "target"],
    ["string isSAN", "appServiceHttp", (b) => (b.isSAN = "false"), "isSAN must be a boolean"],
    [
      "dnsZoneResourceGroup on http",
      "appServiceHttp",
      (b) => (b.dnsZoneResourceGroup = "rg"),
      "dnsZoneResourceGroup is not allowed",
    ],
    [
      "missing dnsZoneResourceGroup on dns",
      "appServiceDns",
      (b) => delete b.dnsZoneResourceGroup,
      "dnsZoneResourceGroup is required",
    ],
    [
      "missing plan name",
      "appServiceHttp",
      (b) => delete b.cloudAppServicePlanName,
      "cloudAppServicePlanName is required",
    ],
    [
      "missing slot name",
      "appServiceHttp",
      (b) => delete b.cloudAppServiceSlotName,
      "cloudAppServiceSlotName is required",
    ],
    [
      "slot without sitename/slotname",
      "appServiceSlot",
      (b) => (b.cloudAppServiceName = "contoso-web"),
      "cloudAppServiceName must be 'sitename/staging'",
    ],
    [
      "slot name mismatch",
      "appServiceSlot",
      (b) => (b.cloudAppServiceName = "contoso-web/prod"),
      "cloudAppServiceName",
    ],
    [
      "'/' in app name without slot",
      "appServiceHttp",
      (b) => (b.cloudAppServiceName = "a/b"),
      "cloudAppServiceName must not contain '/'",
    ],
    [
      "key vault fields on app service",
      "appServiceDns",
      (b) => (b.keyVaultName = "kv"),
      "keyVaultName is not allowed",
    ],
    [
      "http challenge on key vault",
      "keyVault",
      (b) => (b.challengeType = "http"),
      "challengeType must be 'dns'",
    ],
    ["missing keyVaultName", "keyVault", (b) => delete b.keyVaultName, "keyVaultName is required"],
    [
      "missing accessTokenKeyVault",
      "keyVault",
      (b) => delete b.accessTokenKeyVault,
      "accessTokenKeyVault is required",
    ],
    [
      "app service fields on key vault",
      "keyVault",
      (b) => (b.cloudAppServiceName = "web"),
      "cloudAppServiceName is not allowed",
    ],
  ];

  it.each(violations)(
    "refuses %s with 400 naming the field",
    async (_name, base, mutate, message) => {
      const body: Body = { ...bodies[base] };
      mutate(body);

      const reply = await create(body);

      expect(reply.status).toBe(400);
      expect(reply.contentType).toMatch(/^text\/plain/);
      expect(reply.text).toContain(message);
    },
  );

  it("says the certificate name is not defined when it is missing", async () => {
    const { certificateName: _, ...body } = bodies.appServiceHttp;

    expect(await create(body)).toMatchObject({
      status: 400,
      text: "Certificate name is not defined",
    });
  });
});

describe("v3 create: authorization", () => {
  it("refuses a missing or wrong API key with 401 text", async () => {
    const missing = await post(v3Url(sim, "create"), { json: bodies.appServiceHttp });
    const wrong = await post(v3Url(sim, "create"), {
      json: bodies.appServiceHttp,
      headers: { authorization: "Bearer not-the-key" },
    });

    for (const reply of [missing, wrong]) {
      expect(reply).toMatchObject({ status: 401, text: "Unauthorized: invalid API key" });
      expect(reply.contentType).toMatch(/^text\/plain/);
    }
  });

  it("refuses an unknown subscription with 401", async () => {
    const reply = await post(v3Url(sim, "create", "other-subscription"), {
      json: bodies.appServiceHttp,
      headers: apiKeyHeader(sim),
    });

    expect(reply.status).toBe(401);
  });

  it("refuses a vault token as accessToken and a management token as accessTokenKeyVault", async () => {
    const swapped = {
      ...bodies.keyVault,
      accessToken: bodies.keyVault.accessTokenKeyVault,
      accessTokenKeyVault: bodies.keyVault.accessToken,
    };
    const vaultAsManagement = await create(swapped);
    const managementAsVault = await create({
      ...bodies.keyVault,
      accessTokenKeyVault: bodies.keyVault.accessToken,
    });
    const madeUp = await create({ ...bodies.appServiceHttp, accessToken: "simtok-made-up" });

    expect(vaultAsManagement).toMatchObject({
      status: 401,
      text: "Authorization failed: accessToken was not issued for https://management.core.windows.net/",
    });
    expect(managementAsVault).toMatchObject({
      status: 401,
      text: "Authorization failed: accessTokenKeyVault was not issued for https://vault.azure.net",
    });
    expect(madeUp.status).toBe(401);
  });

  it("refuses malformed JSON and a non-JSON media type", async () => {
    const malformed = await post(v3Url(sim, "create"), {
      body: "{not json",
      headers: { ...apiKeyHeader(sim), "content-type": "application/json" },
    });
    const textBody = await post(v3Url(sim, "create"), {
      body: JSON.stringify(bodies.appServiceHttp),
      headers: { ...apiKeyHeader(sim), "content-type": "text/plain" },
    });

    expect(malformed.status).toBe(400);
    expect(malformed.text).toMatch(/^Malformed JSON body/);
    expect(textBody.status).toBe(415);
  });
});
