import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AccountPorts } from "../../../../shared/app/services.js";
import type { CreateCertificateInput } from "../../../../shared/core/certificate/createRequest.js";
import { ConfigError, UpstreamError } from "../../../../shared/lib/errors.js";
import { REDACTED } from "../../../../shared/lib/redact/redact.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import {
  SAMPLE_REFUSAL,
  type Simulator,
  sampleCertificates,
  startSimulator,
} from "../../../../sim/index.js";
import {
  type CreateInputCase,
  createInput,
  distinctiveSecrets,
  expectNoSecretLeaks,
  failure,
  heldToken,
  heldTokens,
  jsonBody,
  runtimeFor,
  type Sandbox,
  startSandbox,
  tokenResources,
  watchSimulator,
} from "../../../support/simulatorServices.js";

const MANAGEMENT = "https://management.core.windows.net/";

let sandbox: Sandbox;
let sim: Simulator;
let runtime: AccountPorts;
const extraRuntimes: AccountPorts[] = [];

function otherRuntime(env: Record<string, string | undefined>): AccountPorts {
  const r = runtimeFor(sim, env);
  extraRuntimes.push(r);
  return r;
}

const v3Path = (op: "create" | "renew", subscription = sim.options.subscription) =>
  `/prod/v3/ssl/certificate/subscription/${encodeURIComponent(subscription)}/schedule/${op}`;
const publicPath = (rest: string, id = sim.options.subscriptionId) =>
  `/public/v1/subscription/${encodeURIComponent(id)}/public/certificate/${rest}`;

beforeAll(async () => {
  sandbox = await startSandbox({
    sim: { subscription: "portal-subscription", certificates: sampleCertificates(new Date()) },
  });
  sim = sandbox.sim;
});
beforeEach(() => {
  sim.reset();
  // A fresh token cache per test, so token requests can be counted.
  runtime = runtimeFor(sim);
});
afterEach(async () => {
  await runtime.close();
  await Promise.all(extraRuntimes.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await sandbox.close();
  expectNoSecretLeaks();
});

/**
 * Headers every service call carries. Bearer is the API key on v3; the public operations send
 * no Authorization (the tokens travel in the body, never in a header).
 */
function expectJsonPost(
  op: Parameters<Simulator["requestsFor"]>[0],
  path: string,
  bearer: string | undefined,
) {
  const requests = sim.requestsFor(op);
  expect(requests).toHaveLength(1);
  const [request] = requests;
  expect(request?.method).toBe("POST");
  expect(request?.path).toBe(path);
  expect(request?.query).toBe("");
  expect(request?.headers["content-type"]).toBe("application/json");
  expect(request?.headers.authorization).toBe(
    bearer === undefined ? undefined : `Bearer ${bearer}`,
  );
  return request;
}

describe("create (spec 4.1)", () => {
  it.each<CreateInputCase>(["appServiceHttp", "appServiceDns", "appServiceSlot"])(
    "%s: injects the management token only, with the API key as Bearer",
    async (name) => {
      const input = createInput(name);

      const answer = await runtime.client.create(input);

      expect(answer).toBe(`Certificate ${input.certificateName} is scheduled for creation.`);
      const request = expectJsonPost("create", v3Path("create"), sim.options.apiKey);
      const management = await heldToken(runtime, "management");
      expect(jsonBody(request)).toStrictEqual({ ...input, accessToken: management });
      expect(tokenResources(sim)).toEqual([MANAGEMENT]);
      const created = sim.certificates().find((c) => c.certificateName === input.certificateName);
      expect(created).toMatchObject({
        target: "Cloud App Service",
        challengeType: input.challengeType,
      });
    },
  );

  it("Key Vault: injects the management token and the vault token as accessTokenKeyVault", async () => {
    const input = createInput("keyVault");

    const answer = await runtime.client.create(input);

    expect(answer).toBe("Certificate kv-dns is scheduled for creation.");
    const request = expectJsonPost("create", v3Path("create"), sim.options.apiKey);
    const { management, vault } = await heldTokens(runtime);
    expect(management).not.toBe(vault);
    expect(jsonBody(request)).toStrictEqual({
      ...input,
      accessToken: management,
      accessTokenKeyVault: vault,
    });
    expect(sim.certificates().find((c) => c.certificateName === "kv-dns")).toMatchObject({
      target: "Cloud Key Vault + DNS",
      keyVaultName: "kv-contoso",
      keyVaultCertificateName: "kv-dns",
    });
  });

  it("400: UPSTREAM_REJECTED with the service's plain text, sent once", async () => {
    const input: CreateCertificateInput = { ...createInput("appServiceHttp"), certificateName: "" };

    const error = await failure(runtime.client.create(input));

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({
      code: "UPSTREAM_REJECTED",
      upstream: "create",
      status: 400,
      detail: "Certificate name is not defined",
      retriable: false,
    });
    expect(error.message).toBe(
      "create certificate failed: the service answered 400: Certificate name is not defined",
    );
    expect(sim.requestsFor("create")).toHaveLength(1);
  });

  it("401 for a wrong API key: UPSTREAM_UNAUTHORIZED, and the key is not in the message", async () => {
    const wrongKey = distinctiveSecrets().apiKey;
    const client = otherRuntime({ CERTSCHED_API_KEY: wrongKey }).client;

    const error = await failure(client.create(createInput("appServiceHttp")));

    expect(error).toMatchObject({
      code: "UPSTREAM_UNAUTHORIZED",
      status: 401,
      detail: "Unauthorized: invalid API key",
    });
    expect(error.message).toBe(
      "create certificate failed: the service answered 401 (the service refused certsched's credentials): Unauthorized: invalid API key",
    );
    // Sent once more with fresh cloud tokens (a 401 may mean a token revoked early), no more.
    expect(sim.requestsFor("create")).toHaveLength(2);
    expect(sim.requestsFor("create")[0]?.headers.authorization).toBe(`Bearer ${wrongKey}`);
  });

  it.each([
    ["text/html; charset=utf-8", "<html><head><title>502 Bad Gateway</title></head>"],
    ["text/plain", "<!DOCTYPE html>\n<html><head>\n<title>\n  502 Bad Gateway\n</title>"],
  ])("a gateway's HTML page (%s) is reduced to status and title", async (contentType, head) => {
    sim.inject("create", {
      status: 502,
      headers: { "content-type": contentType },
      body: `${head}<body><h1>Bad Gateway</h1><hr><center>nginx/1.25.3</center><script>x()</script></body></html>`,
    });

    const error = await failure(runtime.client.create(createInput("appServiceHttp")));

    expect(error).toMatchObject({
      code: "UPSTREAM_FAILED",
      status: 502,
      detail: 'HTML page "502 Bad Gateway"',
    });
    expect(error.message).toBe(
      'create certificate failed: the service answered 502: HTML page "502 Bad Gateway"',
    );
    expect(error.message).not.toMatch(/<|nginx|script/);
  });

  it("redacts a token or the API key that the service echoes back", async () => {
    const management = await runtime.tokens.token(MANAGEMENT);
    sim.inject("create", {
      status: 400,
      body: `Token ${management} is not valid for key ${sim.options.apiKey}`,
    });

    const error = await failure(runtime.client.create(createInput("appServiceHttp")));

    expect((error as UpstreamError).detail).toBe(
      `Token ${REDACTED} is not valid for key ${REDACTED}`,
    );
    expect(error.message).not.toContain(management);
  });

  it("names CERTSCHED_SUBSCRIPTION when it is not set, before any request", async () => {
    const client = otherRuntime({
      CERTSCHED_SUBSCRIPTION: undefined,
      CERTSCHED_SUBSCRIPTION_ID: sim.options.subscriptionId,
    }).client;

    for (const call of [
      () => client.create(createInput("keyVault")),
      () => client.renew("www-contoso-com"),
    ]) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.name)).toEqual([
        "CERTSCHED_SUBSCRIPTION",
      ]);
    }
    expect(sim.requests).toHaveLength(0);
  });
});

describe("renew, v3 (spec 4.2)", () => {
  it("sends the name and the management token, with the API key as Bearer", async () => {
    const before = sim.renewCallsFor("www-contoso-com");

    const answer = await runtime.client.renew("www-contoso-com");

    expect(answer).toBe("Certificate www-contoso-com is scheduled for update.");
    const request = expectJsonPost("renew", v3Path("renew"), sim.options.apiKey);
    const management = await heldToken(runtime, "management");
    expect(jsonBody(request)).toStrictEqual({
      certificateName: "www-contoso-com",
      accessToken: management,
    });
    expect(sim.renewCallsFor("www-contoso-com")).toBe(before + 1);
  });

  it("400 for an unknown certificate: UPSTREAM_REJECTED with detail", async () => {
    const error = await failure(runtime.client.renew("nope"));

    expect(error).toMatchObject({
      code: "UPSTREAM_REJECTED",
      upstream: "renew",
      status: 400,
      detail: "Certificate nope not found",
    });
    expect(sim.requestsFor("renew")).toHaveLength(1);
  });

  it("400 when the service refuses the renewal", async () => {
    const error = await failure(runtime.client.renew("intranet-contoso-com"));

    expect(error).toMatchObject({ code: "UPSTREAM_REJECTED", detail: SAMPLE_REFUSAL });
    expect(error.message).toBe(
      `renew certificate (v3) failed: the service answered 400: ${SAMPLE_REFUSAL}`,
    );
  });

  it("401 for a wrong API key", async () => {
    const client = otherRuntime({ CERTSCHED_API_KEY: distinctiveSecrets().apiKey }).client;

    const error = await failure(client.renew("www-contoso-com"));

    expect(error).toMatchObject({ code: "UPSTREAM_UNAUTHORIZED", upstream: "renew", status: 401 });
    // Once more with a fresh management token, no more.
    expect(sim.requestsFor("renew")).toHaveLength(2);
  });
});

describe("list due (spec 4.3)", () => {
  it("posts the ResourceRequest to the exact getlist path and reads the records", async () => {
    const due = await runtime.client.listDue();

    const { management, vault } = await heldTokens(runtime);
    const request = expectJsonPost(
      "list",
      `/public/v1/subscription/${sim.options.subscriptionId}/public/certificate/renew/getlist`,
      undefined,
    );
    expect(jsonBody(request)).toStrictEqual({
      accessToken: management,
      accessTokenKeyVault: vault,
    });
    const limit = Date.now() + 20 * DAY_MS;
    const expected = sim.certificates().filter((c) => c.expiryDate.getTime() < limit);
    expect(expected.length).toBeGreaterThan(0);
    expect(due.rejected).toEqual([]);
    expect(due.certificates.map((c) => [c.certificateName, c.expiryDate, c.id])).toEqual(
      expected.map((c) => [c.certificateName, c.expiryDate, c.id]),
    );
    expect(due.certificates[0]).toMatchObject({ renewal: "Automatic", siteId: 0, password: null });
  });

  it("404 means nothing is due: an empty list, asked once", async () => {
    const quiet = await startSimulator({
      ...distinctiveSecrets(),
      certificates: [{ certificateName: "later", expiryDate: new Date(Date.now() + 45 * DAY_MS) }],
    });
    watchSimulator(quiet);
    const quietRuntime = runtimeFor(quiet);
    try {
      await expect(quietRuntime.client.listDue()).resolves.toEqual({
        certificates: [],
        rejected: [],
      });
      expect(quiet.requestsFor("list")).toHaveLength(1);
    } finally {
      await quietRuntime.close();
      await quiet.close();
    }
  });

  it("keeps the good records and reports the bad ones by index, name and field", async () => {
    const good = {
      certificateName: "good",
      issueDate: "2026-09-02T10:00:00.0000000",
      expiryDate: "2026-12-01T10:00:00.0000000",
      target: "Cloud App Service",
      renewal: "Automatic",
      id: 1,
      subscriptionId: 1001,
      siteId: 0,
    };
    sim.inject("list", {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify([good, { ...good, certificateName: "bad", id: 2, expiryDate: "soon" }]),
    });

    const due = await runtime.client.listDue();

    expect(due.certificates.map((c) => c.certificateName)).toEqual(["good"]);
    expect(due.rejected).toEqual([
      {
        index: 1,
        certificateName: "bad",
        id: 2,
        problems: [
          { name: "expiryDate", message: "must be a date like 2026-12-01T10:00:00.1234567" },
        ],
      },
    ]);
  });

  it.each([
    ["malformed JSON", "[{", "with malformed JSON"],
    ["an object instead of an array", '{"certificates":[]}', "with JSON that is not an array"],
  ])("a 200 with %s is UPSTREAM_BAD_RESPONSE", async (_, body, words) => {
    sim.inject("list", { status: 200, headers: { "content-type": "application/json" }, body });

    const error = await failure(runtime.client.listDue());

    expect(error).toMatchObject({ code: "UPSTREAM_BAD_RESPONSE", upstream: "list", status: 200 });
    expect(error.message).toBe(
      `list certificates due for renewal failed: the service answered 200 ${words}`,
    );
  });

  it("names CERTSCHED_SUBSCRIPTION_ID when neither subscription setting is set", async () => {
    const client = otherRuntime({
      CERTSCHED_SUBSCRIPTION: undefined,
      CERTSCHED_SUBSCRIPTION_ID: undefined,
    }).client;

    for (const call of [() => client.listDue(), () => client.test()]) {
      const error = await failure(call());
      expect((error as ConfigError).problems.map((p) => p.name)).toEqual([
        "CERTSCHED_SUBSCRIPTION_ID",
      ]);
    }
    expect(sim.requests).toHaveLength(0);
  });
});

describe("renew a listed certificate (spec 4.4)", () => {
  it("posts a CertificateRequest with exactly the five identifying fields", async () => {
    const { certificates } = await runtime.client.listDue();
    const record = certificates.find((c) => c.certificateName === "vault-fabrikam-com");
    if (!record) throw new Error("the sample list lacks vault-fabrikam-com");
    const before = sim.renewCallsFor(record.certificateName);

    const answer = await runtime.client.renewListed(record);

    expect(answer).toBe("Certificate vault-fabrikam-com is scheduled for renewal.");
    const { management, vault } = await heldTokens(runtime);
    const request = expectJsonPost("publicRenew", publicPath("renew"), undefined);
    expect(jsonBody(request)).toStrictEqual({
      accessToken: management,
      accessTokenKeyVault: vault,
      certificate: {
        certificateName: "vault-fabrikam-com",
        target: "Cloud Key Vault + DNS",
        renewal: "Automatic",
        id: record.id,
        subscriptionId: 1001,
      },
    });
    expect(sim.renewCallsFor(record.certificateName)).toBe(before + 1);
  });

  it("400 when the service refuses: UPSTREAM_REJECTED with its text", async () => {
    const refused = sim.certificates().find((c) => c.certificateName === "intranet-contoso-com");
    if (!refused) throw new Error("the sample lacks intranet-contoso-com");

    const error = await failure(runtime.client.renewListed(refused));

    expect(error).toMatchObject({
      code: "UPSTREAM_REJECTED",
      upstream: "publicRenew",
      status: 400,
      detail: SAMPLE_REFUSAL,
    });
    expect(error.message).toBe(
      `renew certificate failed: the service answered 400: ${SAMPLE_REFUSAL}`,
    );
    expect(sim.requestsFor("publicRenew")).toHaveLength(1);
  });
});

describe("connectivity test (spec 4.5)", () => {
  it("posts the ResourceRequest and returns the service's text", async () => {
    const answer = await runtime.client.test();

    expect(answer).toBe("Connection successful.");
    const { management, vault } = await heldTokens(runtime);
    const request = expectJsonPost("test", publicPath("test"), undefined);
    expect(jsonBody(request)).toStrictEqual({
      accessToken: management,
      accessTokenKeyVault: vault,
    });
  });
});

const PUBLIC_PATHS = { list: "renew/getlist", publicRenew: "renew", test: "test" } as const;

describe("public operations: documented errors", () => {
  type PublicCall = (r: AccountPorts) => Promise<unknown>;
  const calls: [string, "list" | "publicRenew" | "test", PublicCall][] = [
    ["list", "list", (r) => r.client.listDue()],
    ["test", "test", (r) => r.client.test()],
    [
      "public renew",
      "publicRenew",
      (r) =>
        r.client.renewListed({
          certificateName: "www-contoso-com",
          target: "Cloud App Service",
          renewal: "Automatic",
          id: 1,
          subscriptionId: 1001,
        }),
    ],
  ];

  it.each(calls)("%s: 401 for an unknown subscription id, sent twice", async (_, op, call) => {
    const error = await failure(call(otherRuntime({ CERTSCHED_SUBSCRIPTION_ID: "9999" })));

    expect(error).toMatchObject({
      code: "UPSTREAM_UNAUTHORIZED",
      upstream: op,
      status: 401,
      detail: "Authorization failed: unknown subscription id",
    });
    // The second time with fresh tokens: a 401 may mean tokens revoked early.
    expect(sim.requestsFor(op)).toHaveLength(2);
    expect(sim.requestsFor(op)[0]?.path).toBe(publicPath(PUBLIC_PATHS[op], "9999"));
  });

  it.each(calls)("%s: 400 with the service's processing error", async (_, op, call) => {
    sim.inject(op, { status: 400, body: "Processing error: subscription suspended\r\n" });

    const error = await failure(call(runtime));

    expect(error).toMatchObject({
      code: "UPSTREAM_REJECTED",
      upstream: op,
      status: 400,
      detail: "Processing error: subscription suspended",
    });
    expect(sim.requestsFor(op)).toHaveLength(1);
  });
});

describe("plain-text answers are returned as text, never JSON-parsed", () => {
  const calls: [
    string,
    "create" | "renew" | "publicRenew" | "test",
    (r: AccountPorts) => Promise<string>,
  ][] = [
    ["create", "create", (r) => r.client.create(createInput("appServiceHttp"))],
    ["renew", "renew", (r) => r.client.renew("www-contoso-com")],
    [
      "public renew",
      "publicRenew",
      (r) =>
        r.client.renewListed({
          certificateName: "www-contoso-com",
          target: "Cloud App Service",
          renewal: "Automatic",
          id: 1,
          subscriptionId: 1001,
        }),
    ],
    ["test", "test", (r) => r.client.test()],
  ];

  it.each(calls)("%s", async (_, op, call) => {
    const answers: [string, string][] = [
      ['{"scheduled":true}', "text/plain"],
      ["42", "text/plain"],
      ["", "text/plain"],
    ];
    for (const [body, contentType] of answers) {
      sim.inject(op, { status: 200, headers: { "content-type": contentType }, body });

      await expect(call(runtime)).resolves.toBe(body);
    }
  });

  // A 2xx that is not plain text is not the service's confirmation.
  it.each(calls)(
    "%s: a 200 typed application/json is UPSTREAM_BAD_RESPONSE",
    async (_, op, call) => {
      sim.inject(op, {
        status: 200,
        headers: { "content-type": "application/json" },
        body: '{"scheduled":true}',
      });

      const error = await failure(call(runtime));

      expect(error).toMatchObject({ code: "UPSTREAM_BAD_RESPONSE", upstream: op, status: 200 });
      expect(error.message).toMatch(
        /answered 200 with content type application\/json, not the plain-text confirmation/,
      );
    },
  );
});

describe("path parameters are encoded: no value changes the path", () => {
  const values = [
    "a/b",
    "a/../b",
    "../../public/v1",
    "%2F",
    "..%2F..",
    "x?y=1",
    "#fragment",
    "a b&c=d;e",
    "ünïcødé",
  ];

  it.each(values)("subscription, subscription id and tenant %j", async (value) => {
    const odd = await startSandbox({
      sim: {
        subscription: value,
        subscriptionId: value,
        tenantId: value,
        certificates: [
          { certificateName: "due", expiryDate: new Date(Date.now() + DAY_MS), id: 1 },
        ],
      },
    });
    try {
      const { client } = odd.runtime;
      // Listed first: a renewal completes at once in the simulator and moves the expiry out.
      const { certificates } = await client.listDue();
      await client.renewListed(certificates[0] ?? failWith("nothing listed"));
      await client.renew("due");
      await client.create(createInput("appServiceHttp"));
      await client.test();

      const seg = encodeURIComponent(value);
      expect(odd.sim.requests.map((r) => [r.operation, r.path, r.query])).toEqual(
        expect.arrayContaining([
          ["create", `/prod/v3/ssl/certificate/subscription/${seg}/schedule/create`, ""],
          ["renew", `/prod/v3/ssl/certificate/subscription/${seg}/schedule/renew`, ""],
          ["list", `/public/v1/subscription/${seg}/public/certificate/renew/getlist`, ""],
          ["publicRenew", `/public/v1/subscription/${seg}/public/certificate/renew`, ""],
          ["test", `/public/v1/subscription/${seg}/public/certificate/test`, ""],
          ["token", `/identity/${seg}/oauth2/token`, ""],
        ]),
      );
      expect(odd.sim.requests.filter((r) => r.operation === "unknown")).toEqual([]);
    } finally {
      await odd.close();
    }
  });

  it("certificate names with path characters stay in the body", async () => {
    const names = ["../../prod/v3/x", "a/b?c=d#e", "%2F..%2F", "."];

    for (const name of names) {
      await runtime.client.create(createInput("appServiceHttp", { certificateName: name }));
      await runtime.client.renew(name);
    }

    expect(sim.requests.filter((r) => r.operation !== "token").map((r) => r.path)).toEqual(
      names.flatMap(() => [v3Path("create"), v3Path("renew")]),
    );
    expect(sim.requestsFor("renew").map((r) => jsonBody(r).certificateName)).toEqual(names);
    for (const name of names) expect(sim.renewCallsFor(name)).toBe(1);
  });
});

function failWith(message: string): never {
  throw new Error(message);
}

describe("secrets", () => {
  it("appear in none of the errors this file provoked", () => {
    expectNoSecretLeaks(20);
  });
});
