import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCertificate } from "../../../functions/createCertificate.js";
import { MAX_BODY_BYTES } from "../../../shared/edge/readBody.js";
import { type AppHarness, type Reply, STACK_FRAME, startHarness } from "../../support/app.js";
import { validCreateInputs } from "../../support/createBodies.js";
import { httpRequest, streamingRequest } from "../../support/invoke.js";

type Body = Record<string, unknown>;

/** Valid caller bodies for the three field sets of spec 2.1 (no tokens: certsched adds them). */
const VALID = validCreateInputs() satisfies Record<string, Body>;
type Case = keyof typeof VALID;

let app: AppHarness;

beforeAll(async () => {
  app = await startHarness();
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure();
});
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

function create(json: unknown): Promise<Reply> {
  return app.call(createCertificate, httpRequest({ path: "certificates", json }));
}

function expectProblem(reply: Reply, status: number): Record<string, unknown> {
  expect(reply.status).toBe(status);
  expect(reply.headers["content-type"]).toBe("application/problem+json");
  expect(reply.text).not.toMatch(STACK_FRAME);
  const body = reply.body as Record<string, unknown>;
  expect(body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
  return body;
}

describe("createCertificate: happy paths", () => {
  it.each<Case>(["appServiceHttp", "appServiceDns", "appServiceSlot"])(
    "schedules %s with the management token and the API key injected",
    async (name) => {
      const input = VALID[name];

      const reply = await create(input);

      expect(reply.status).toBe(202);
      expect(reply.headers["content-type"]).toMatch(/^application\/json/);
      expect(reply.body).toEqual({
        status: "scheduled",
        certificateName: input.certificateName,
        account: "default",
        message: `Certificate ${input.certificateName} is scheduled for creation.`,
      });
      const [sent, ...more] = app.sim.requestsFor("create");
      expect(more).toEqual([]);
      expect(sent?.headers.authorization).toBe(`Bearer ${app.sim.options.apiKey}`);
      expect(sent?.path).toBe(
        `/prod/v3/ssl/certificate/subscription/${app.sim.options.subscription}/schedule/create`,
      );
      const forwarded = JSON.parse(sent?.body ?? "{}") as Body;
      expect(forwarded).toEqual({ ...input, accessToken: expect.any(String) });
      expect(app.sim.issuedTokens()).toContain(forwarded.accessToken);
      // One token, for resource management only: App Service needs no vault token.
      expect(app.sim.requestsFor("token")).toHaveLength(1);
      expect(app.sim.requestsFor("token")[0]?.body).toContain(
        `resource=${encodeURIComponent(app.sim.options.managementResource)}`,
      );
    },
  );

  it("schedules a Key Vault certificate with both tokens, each for its own resource", async () => {
    const reply = await create(VALID.keyVault);

    expect(reply.status).toBe(202);
    const forwarded = JSON.parse(app.sim.requestsFor("create")[0]?.body ?? "{}") as Body;
    expect(forwarded).toEqual({
      ...VALID.keyVault,
      accessToken: expect.any(String),
      accessTokenKeyVault: expect.any(String),
    });
    expect(forwarded.accessToken).not.toBe(forwarded.accessTokenKeyVault);
    expect(app.sim.issuedTokens()).toEqual(
      expect.arrayContaining([forwarded.accessToken, forwarded.accessTokenKeyVault]),
    );
    // The simulator only schedules when each token matches its resource: it did.
    expect(app.sim.certificates().map((c) => c.certificateName)).toContain("kv-dns");
  });

  it("reuses the cached token for a second create", async () => {
    await create(VALID.appServiceHttp);
    const before = app.sim.requestsFor("token").length;

    const reply = await create({ ...VALID.appServiceHttp, certificateName: "app-http-2" });

    expect(reply.status).toBe(202);
    expect(app.sim.requestsFor("token")).toHaveLength(before);
  });

  it("logs the scheduled certificate without its password or any token", async () => {
    await create(VALID.keyVault);

    const lines = app.logs.filter((l) => l.functionName === "createCertificate");
    expect(lines.map((l) => l.message).join("\n")).toContain("kv-dns");
    app.addSecrets(VALID.keyVault.password);
    expect(app.leaks()).toEqual([]);
    // The caller's own password is echoed to nobody, not even in the 202 body.
    expect(app.bodies.join("\n")).not.toContain(VALID.keyVault.password);
  });
});

/** One invalid body per rule of spec 2.1: [description, base case, change, field, rule]. */
const INVALID: [string, Case, (b: Body) => void, string, RegExp][] = [
  // Common fields, every case.
  [
    "missing certificateName",
    "appServiceHttp",
    (b) => delete b.certificateName,
    "certificateName",
    /is required/,
  ],
  ["missing rootDomain", "appServiceDns", (b) => delete b.rootDomain, "rootDomain", /is required/],
  ["missing email", "keyVault", (b) => delete b.email, "email", /is required/],
  ["invalid email", "appServiceHttp", (b) => (b.email = "not-an-address"), "email", /e-mail/],
  ["missing password", "keyVault", (b) => delete b.password, "password", /is required/],
  ["empty password", "appServiceHttp", (b) => (b.password = ""), "password", /must not be empty/],
  ["missing isSAN", "appServiceHttp", (b) => delete b.isSAN, "isSAN", /is required/],
  ["string isSAN", "keyVault", (b) => (b.isSAN = "true"), "isSAN", /must be true or false/],
  [
    "missing cloudSubscriptionId",
    "appServiceSlot",
    (b) => delete b.cloudSubscriptionId,
    "cloudSubscriptionId",
    /is required/,
  ],
  [
    "numeric certificateName",
    "appServiceHttp",
    (b) => (b.certificateName = 42),
    "certificateName",
    /must be a string/,
  ],
  [
    "overlong rootDomain",
    "appServiceHttp",
    (b) => (b.rootDomain = `${"a".repeat(1021)}.com`),
    "rootDomain",
    /at most 1024 characters/,
  ],
  ["missing target", "appServiceHttp", (b) => delete b.target, "target", /Cloud App Service/],
  ["unknown target", "keyVault", (b) => (b.target = "Azure App Service"), "target", /must be/],
  [
    "missing challengeType",
    "appServiceHttp",
    (b) => delete b.challengeType,
    "challengeType",
    /"http" or "dns"/,
  ],
  [
    "unknown challengeType",
    "appServiceDns",
    (b) => (b.challengeType = "tls-alpn-01"),
    "challengeType",
    /"http" or "dns"/,
  ],
  // Tokens are certsched's business.
  [
    "caller sends accessToken",
    "appServiceHttp",
    (b) => (b.accessToken = "caller-token-value"),
    "accessToken",
    /must not be sent/,
  ],
  [
    "caller sends accessTokenKeyVault",
    "keyVault",
    (b) => (b.accessTokenKeyVault = "caller-vault-token"),
    "accessTokenKeyVault",
    /must not be sent/,
  ],
  // Cloud App Service with http: the five cloudAppService* fields, no dnsZoneResourceGroup.
  ...(
    [
      "cloudAppServicePlanName",
      "cloudAppServicePlanResourceGroup",
      "cloudAppServiceResourceGroup",
      "cloudAppServiceName",
      "cloudAppServiceSlotName",
    ] as const
  ).map((field): [string, Case, (b: Body) => void, string, RegExp] => [
    `App Service without ${field}`,
    "appServiceHttp",
    (b) => delete b[field],
    field,
    /is required/,
  ]),
  [
    "App Service with http and dnsZoneResourceGroup",
    "appServiceHttp",
    (b) => (b.dnsZoneResourceGroup = "rg-dns"),
    "dnsZoneResourceGroup",
    /not allowed for target "Cloud App Service" with challengeType "http"/,
  ],
  [
    "App Service with keyVaultName",
    "appServiceDns",
    (b) => (b.keyVaultName = "kv"),
    "keyVaultName",
    /not allowed/,
  ],
  [
    "App Service slot name without sitename/slot",
    "appServiceSlot",
    (b) => (b.cloudAppServiceName = "contoso-web"),
    "cloudAppServiceName",
    /sitename\/staging/,
  ],
  [
    "App Service without a slot but a slash in the name",
    "appServiceHttp",
    (b) => (b.cloudAppServiceName = "contoso-web/staging"),
    "cloudAppServiceName",
    /must not contain "\/"/,
  ],
  [
    "App Service slot name of the wrong type",
    "appServiceHttp",
    (b) => (b.cloudAppServiceSlotName = null),
    "cloudAppServiceSlotName",
    /must be a string/,
  ],
  // Cloud App Service with dns: as above plus dnsZoneResourceGroup.
  [
    "App Service with dns without dnsZoneResourceGroup",
    "appServiceDns",
    (b) => delete b.dnsZoneResourceGroup,
    "dnsZoneResourceGroup",
    /is required/,
  ],
  // Cloud Key Vault + DNS: dns only, dnsZoneResourceGroup and keyVaultName, no cloudAppService*.
  [
    "Key Vault with http",
    "keyVault",
    (b) => (b.challengeType = "http"),
    "challengeType",
    /must be "dns"/,
  ],
  [
    "Key Vault without dnsZoneResourceGroup",
    "keyVault",
    (b) => delete b.dnsZoneResourceGroup,
    "dnsZoneResourceGroup",
    /is required/,
  ],
  [
    "Key Vault without keyVaultName",
    "keyVault",
    (b) => delete b.keyVaultName,
    "keyVaultName",
    /is required/,
  ],
  [
    "Key Vault with an empty keyVaultName",
    "keyVault",
    (b) => (b.keyVaultName = ""),
    "keyVaultName",
    /must not be empty/,
  ],
  [
    "Key Vault with cloudAppServiceName",
    "keyVault",
    (b) => (b.cloudAppServiceName = "contoso-web"),
    "cloudAppServiceName",
    /not allowed for target "Cloud Key Vault \+ DNS"/,
  ],
  [
    "Key Vault with cloudAppServiceSlotName",
    "keyVault",
    (b) => (b.cloudAppServiceSlotName = ""),
    "cloudAppServiceSlotName",
    /not allowed/,
  ],
  [
    "an unknown field",
    "appServiceHttp",
    (b) => (b.renewBeforeDays = 30),
    "renewBeforeDays",
    /not allowed/,
  ],
];

describe("createCertificate: the field-set rules of spec 2.1", () => {
  it.each(INVALID)("refuses %s with 400 naming the field", async (_, base, change, field, rule) => {
    const body: Body = structuredClone({ ...VALID[base] });
    change(body);

    const reply = await create(body);

    const problem = expectProblem(reply, 400);
    expect(problem.code).toBe("VALIDATION_FAILED");
    const errors = problem.errors as { name: string; message: string }[];
    expect(errors).toContainEqual({ name: field, message: expect.stringMatching(rule) });
    // Nothing reached the service, not even a token request.
    expect(app.sim.requests).toEqual([]);
  });

  it("names every broken field at once", async () => {
    const { rootDomain: _, ...body } = { ...VALID.keyVault, isSAN: "no", keyVaultName: "" };

    const reply = await create(body);

    const errors = (expectProblem(reply, 400).errors as { name: string }[]).map((e) => e.name);
    expect(errors).toEqual(expect.arrayContaining(["rootDomain", "isSAN", "keyVaultName"]));
  });

  it("never quotes the caller's password in the problem", async () => {
    const password = "hunter2-caller-password";
    const reply = await create({ ...VALID.appServiceHttp, password, email: "broken" });

    expectProblem(reply, 400);
    expect(reply.text).not.toContain(password);
    expect(app.logs.map((l) => l.message).join("\n")).not.toContain(password);
  });
});

describe("createCertificate: a short password echoed by the service", () => {
  it("withholds the service's detail rather than quote a password too short to redact", async () => {
    const password = "abc12";
    app.sim.inject("create", { status: 400, body: `password ${password} is too weak` });

    const reply = await create({ ...VALID.appServiceHttp, password });

    const problem = expectProblem(reply, 422);
    expect(problem.code).toBe("UPSTREAM_REJECTED");
    expect(problem.detail).toContain("400");
    expect(reply.text).not.toContain(password);
    expect(app.logs.map((l) => l.message).join("\n")).not.toContain(password);
    // It did reach the service (the refusal is the service's, not a validation of ours).
    expect(app.sim.requestsFor("create")).toHaveLength(1);
  });
});

describe("createCertificate: bodies that are not a create request", () => {
  const raw = (body: string | undefined, headers: Record<string, string> = {}) =>
    app.call(
      createCertificate,
      httpRequest({
        path: "certificates",
        ...(body === undefined ? {} : { body }),
        headers: { "content-type": "application/json", ...headers },
      }),
    );

  it.each([
    ["malformed JSON", '{"certificateName": "x",'],
    ["a JSON array", "[]"],
    ["a JSON string", '"certificate"'],
    ["JSON null", "null"],
  ])("refuses %s with 400", async (_, body) => {
    const reply = await raw(body);

    const problem = expectProblem(reply, 400);
    expect(problem.errors).toContainEqual({ name: "(body)", message: expect.any(String) });
    expect(app.sim.requests).toEqual([]);
  });

  it("refuses a body whose password is not quoted, without quoting any of it back", async () => {
    // V8's parse error quotes the text around the mistake: here, the password itself.
    const password = "Hunter2SecretPw";
    const { password: _, ...rest } = VALID.appServiceHttp;
    const body = `{"certificateName":"www","password": ${password}, ${JSON.stringify(rest).slice(1)}`;

    const reply = await raw(body);

    const problem = expectProblem(reply, 400);
    expect(problem.errors).toEqual([
      { name: "(body)", message: expect.stringMatching(/^is not valid JSON/) },
    ]);
    const logged = app.logs.map((l) => l.message).join("\n");
    for (const text of [reply.text, logged]) {
      expect(text).not.toContain(password.slice(0, 6));
      expect(text).not.toContain(password);
    }
    expect(app.sim.requests).toEqual([]);
  });

  it.each([
    ["no body", undefined],
    ["an empty body", ""],
    ["whitespace", "  \n "],
  ])("refuses %s with 400 saying a body is required", async (_, body) => {
    const reply = await raw(body);

    const problem = expectProblem(reply, 400);
    expect(problem.errors).toEqual([
      { name: "(body)", message: expect.stringMatching(/required/) },
    ]);
  });

  it.each([
    ["text/plain", "text/plain"],
    ["form encoding", "application/x-www-form-urlencoded"],
    ["xml", "application/xml; charset=utf-8"],
  ])("refuses %s with 415", async (_, contentType) => {
    const reply = await raw(JSON.stringify(VALID.appServiceHttp), { "content-type": contentType });

    expect(expectProblem(reply, 415).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(app.sim.requests).toEqual([]);
  });

  it("accepts application/json with a charset and a +json media type", async () => {
    const body = JSON.stringify(VALID.appServiceHttp);
    expect((await raw(body, { "content-type": "application/json; charset=utf-8" })).status).toBe(
      202,
    );
    expect((await raw(body, { "content-type": "application/merge-patch+json" })).status).toBe(202);
  });

  it("refuses a body over 64 KiB with 413 when content-length says so", async () => {
    const body = JSON.stringify({ ...VALID.appServiceHttp, pad: "x".repeat(MAX_BODY_BYTES) });

    const reply = await raw(body, { "content-length": String(Buffer.byteLength(body)) });

    expect(expectProblem(reply, 413).code).toBe("PAYLOAD_TOO_LARGE");
    expect(app.sim.requests).toEqual([]);
  });

  it("refuses a body over 64 KiB with 413 when content-length lies", async () => {
    const body = JSON.stringify({ ...VALID.appServiceHttp, pad: "x".repeat(MAX_BODY_BYTES) });

    const reply = await raw(body, { "content-length": "200" });

    expectProblem(reply, 413);
  });

  it.each([
    ["no content-length", {}],
    ["a content-length that lies", { "content-length": "512" }],
  ])("stops reading a streamed body over 64 KiB with %s (413)", async (_, headers) => {
    const totalBytes = 16 * 1024 * 1024;
    const { request, progress } = streamingRequest({ path: "certificates", totalBytes, headers });

    const reply = await app.call(createCertificate, request);

    expect(expectProblem(reply, 413).code).toBe("PAYLOAD_TOO_LARGE");
    // It gave up soon after the limit instead of buffering 16 MiB.
    expect(progress.pulled()).toBeLessThan(MAX_BODY_BYTES * 2);
    expect(progress.cancelled()).toBe(true);
    expect(app.sim.requests).toEqual([]);
  });

  it("accepts a streamed create request under the limit", async () => {
    const content = JSON.stringify({ ...VALID.appServiceHttp, certificateName: "streamed-ok" });
    const { request } = streamingRequest({ path: "certificates", content }, 64);

    const reply = await app.call(createCertificate, request);

    expect(reply.status).toBe(202);
    expect(app.sim.requestsFor("create")).toHaveLength(1);
  });
});
