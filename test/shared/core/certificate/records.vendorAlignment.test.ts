import { afterEach, describe, expect, it } from "vitest";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { certificateView } from "../../../../shared/core/certificate/certificateView.js";
import { certificateRecord } from "../../../../shared/core/certificate/records.js";
import { recordWarnings } from "../../../../shared/core/certificate/recordWarnings.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { ConfigError, ValidationError } from "../../../../shared/lib/errors.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { type SeedCertificate, type Simulator, startSimulator } from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor } from "../../../support/app.js";
import { renewDueWith } from "../../../support/renewDue.js";

/*
 * The vendor's own client reads certificateDownloadUrl as an object of links, and its docs show
 * targets and renewal modes the spec does not list. Records like that must be renewed as listed,
 * with one warning per sweep for each field in an undocumented type.
 */

/** The smallest valid environment (the client-secret flow's three settings). */
const SETTINGS = {
  CERTSCHED_BASE_URL: "https://certs.example",
  CERTSCHED_TENANT_ID: "tenant",
  CERTSCHED_CLIENT_ID: "client",
  CERTSCHED_CLIENT_SECRET: "client-secret-value",
};

const inDays = (days: number) => new Date(Date.now() + (days + 0.5) * DAY_MS);

/** The vendor's object of links (V8 client's CertificateDownloadUrl), private-key links included. */
const LINKS = {
  pemUrl: "https://files.example/c/pem",
  pfxUrl: "https://files.example/c/pfx",
  crtUrl: "https://files.example/c/crt",
  keyUrl: "https://files.example/c/key",
  keyTxtUrl: "https://files.example/c/key.txt",
  fullchainCrtUrl: "https://files.example/c/fullchain.crt",
  cabundleCrtUrl: "https://files.example/c/cabundle.crt",
};

const PASSWORD = "pfx-password-7d1c2b";
const PFX = "MIIKpfx-private-key-material-0f3e";

const SEEDS: SeedCertificate[] = [
  {
    certificateName: "links-contoso-com",
    rootDomain: "contoso.com",
    expiryDate: inDays(4),
    certificateDownloadUrl: LINKS,
    password: PASSWORD,
    pfxString: PFX,
  },
  {
    certificateName: "more-links-contoso-com",
    expiryDate: inDays(6),
    certificateDownloadUrl: { crtUrl: "https://files.example/d/crt" },
  },
  { certificateName: "manual-contoso-com", expiryDate: inDays(7), renewal: "Manual" },
  { certificateName: "dns-only-contoso-com", expiryDate: inDays(9), target: "Cloud DNS" },
  { certificateName: "standalone-contoso-com", expiryDate: inDays(11), target: "Standalone" },
  { certificateName: "plain-contoso-com", expiryDate: inDays(12) },
];

let sim: Simulator;
let runtime: AccountPorts;

async function start(certificates: SeedCertificate[]) {
  sim = await startSimulator({ completionDelayMs: 30 * 60_000, certificates });
  runtime = runtimeFor(sim);
}

describe("records the vendor's service sends", () => {
  afterEach(async () => {
    await runtime.close();
    await sim.close();
  });

  it("a sweep renews a record with an object certificateDownloadUrl, Manual renewal and other targets", async () => {
    await start(SEEDS);
    const { log, lines } = collectingLogger();

    const summary = await renewDueWith({
      client: runtime.client,
      ledger: memoryLedger(),
      log,
      now: () => new Date(),
      concurrency: 2,
      graceMs: 2 * 3_600_000,
      dryRun: false,
    });

    expect(summary.failed).toBe(false);
    expect(summary.rejected).toEqual([]);
    expect(summary.results.map((r) => [r.certificateName, r.target, r.outcome]).sort()).toEqual([
      ["dns-only-contoso-com", "Cloud DNS", "renewal-scheduled"],
      ["links-contoso-com", "Cloud App Service", "renewal-scheduled"],
      ["manual-contoso-com", "Cloud App Service", "renewal-scheduled"],
      ["more-links-contoso-com", "Cloud App Service", "renewal-scheduled"],
      ["plain-contoso-com", "Cloud App Service", "renewal-scheduled"],
      ["standalone-contoso-com", "Standalone", "renewal-scheduled"],
    ]);
    for (const seed of SEEDS) expect(sim.renewCallsFor(seed.certificateName)).toBe(1);

    // Renewed as listed: the public renew carries the record's own target and renewal.
    const sent = sim
      .requestsFor("publicRenew")
      .map((r) => (JSON.parse(r.body) as { certificate: Record<string, unknown> }).certificate);
    expect(sent).toContainEqual(
      expect.objectContaining({ certificateName: "manual-contoso-com", renewal: "Manual" }),
    );
    expect(sent).toContainEqual(
      expect.objectContaining({ certificateName: "dns-only-contoso-com", target: "Cloud DNS" }),
    );

    // One warning for the field, naming it and the type seen, however many records carry it.
    const warnings = lines.filter((l) => l.level === "warn").map((l) => l.message);
    expect(warnings.filter((w) => w.includes("certificateDownloadUrl"))).toEqual([
      "certsched: the service sent certificateDownloadUrl as an object in 2 record(s), where spec 2.3 documents string or null: kept as sent, not used by certsched",
    ]);
    const texts = lines.map((l) => l.message);
    expect(leaksIn(sim, texts, [PASSWORD, PFX, LINKS.keyUrl])).toEqual([]);
  });

  it("lists such records and shows them without password, PFX or private-key links", async () => {
    await start(SEEDS.slice(0, 1));

    const { certificates, rejected } = await runtime.client.listDue();

    expect(rejected).toEqual([]);
    const [record] = certificates;
    if (!record) throw new Error("the record was not listed");
    // Kept as sent, not interpreted.
    expect(record.certificateDownloadUrl).toEqual(LINKS);
    const view = certificateView(record, new Date());
    expect(view.certificateDownloadUrl).toEqual({
      crtUrl: LINKS.crtUrl,
      fullchainCrtUrl: LINKS.fullchainCrtUrl,
      cabundleCrtUrl: LINKS.cabundleCrtUrl,
    });
    const shown = JSON.stringify(view);
    for (const secret of [PASSWORD, PFX, LINKS.keyUrl, LINKS.keyTxtUrl, LINKS.pfxUrl]) {
      expect(shown).not.toContain(secret);
    }
    expect(view).not.toHaveProperty("password");
    expect(view).not.toHaveProperty("pfxString");
  });
});

describe("certificateRecord: strict on what certsched uses, tolerant of the rest", () => {
  const wire = {
    certificateName: "www-contoso-com",
    rootDomain: "contoso.com",
    issueDate: "2026-09-02T10:00:00.0000000",
    expiryDate: "2026-12-01T10:00:00.1234567",
    target: "Cloud App Service",
    renewal: "Automatic",
    id: 17,
    subscriptionId: 1001,
    keyVaultName: null,
    keyVaultCertificateName: null,
  };

  it.each<[string, Record<string, unknown>]>([
    ["an object certificateDownloadUrl", { certificateDownloadUrl: { crtUrl: "https://x/crt" } }],
    ["an array certificateDownloadUrl", { certificateDownloadUrl: ["https://x/crt"] }],
    ["a number where a string is documented", { email: 5, orderUri: 7 }],
    ["a boolean pfxString", { pfxString: true }],
    ["a string siteId", { siteId: "12" }],
    ["a string csrInfo", { csrInfo: "CN=contoso.com" }],
    ["an issueDate that is not a date", { issueDate: "yesterday" }],
    ["an issueDate that is a number", { issueDate: 1_790_000_000 }],
    ["a target the spec does not list", { target: "Cloud DNS" }],
    ["Manual renewal", { renewal: "Manual" }],
    ["fields the spec does not list", { thumbprint: "AB12", tags: { a: [1, 2] } }],
  ])("accepts %s and keeps it as sent", (_, patch) => {
    const parsed = certificateRecord.parse({ ...wire, ...patch });

    for (const [field, value] of Object.entries(patch)) expect(parsed[field]).toEqual(value);
    expect(() => certificateView(parsed, new Date())).not.toThrow();
  });

  it.each<[string, Record<string, unknown>]>([
    ["certificateName", { certificateName: 5 }],
    ["id", { id: "17" }],
    ["subscriptionId", { subscriptionId: 1.5 }],
    ["target", { target: { name: "Cloud App Service" } }],
    ["renewal", { renewal: null }],
    ["expiryDate", { expiryDate: "next week" }],
    ["rootDomain", { rootDomain: ["contoso.com"] }],
    ["keyVaultName", { keyVaultName: 3 }],
    ["keyVaultCertificateName", { keyVaultCertificateName: {} }],
  ])("still refuses a wrong %s, naming it", (field, patch) => {
    const parsed = certificateRecord.safeParse({ ...wire, ...patch });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toEqual([field]);
  });

  it("the view shows undocumented types as JSON text and keeps documented ones", () => {
    const parsed = certificateRecord.parse({
      ...wire,
      email: 5,
      challengeType: { type: "dns" },
      issueDate: "yesterday",
      siteId: "12",
    });

    const view = certificateView(parsed, new Date("2026-11-01T00:00:00Z"));

    expect(view).toMatchObject({
      email: "5",
      challengeType: '{"type":"dns"}',
      issueDate: "yesterday",
      siteId: 0,
      certificateDownloadUrl: null,
      daysLeft: 30,
    });
    expect(certificateView(certificateRecord.parse(wire), new Date()).issueDate).toBe(
      "2026-09-02T10:00:00.000Z",
    );
  });

  it("warns per field and type seen, never quoting a value", () => {
    const records = [
      certificateRecord.parse({ ...wire, password: 1234, email: null }),
      certificateRecord.parse({ ...wire, id: 18, password: 5678, siteId: "12" }),
      certificateRecord.parse({ ...wire, id: 19, csrInfo: ["x"], certificateDownloadUrl: null }),
    ];

    const warnings = recordWarnings(records);

    expect(warnings).toEqual([
      "the service sent password as a number in 2 record(s), where spec 2.3 documents string or null: kept as sent, not used by certsched",
      "the service sent siteId as a string in 1 record(s), where spec 2.3 documents number or null: kept as sent, not used by certsched",
      "the service sent csrInfo as an array in 1 record(s), where spec 2.3 documents object or null: kept as sent, not used by certsched",
    ]);
    expect(warnings.join("\n")).not.toMatch(/1234|5678/);
    expect(recordWarnings([certificateRecord.parse(wire)])).toEqual([]);
  });
});

describe("public operations carry no token in any header", () => {
  afterEach(async () => {
    await runtime.close();
    await sim.close();
  });

  /** Every header value of every public call, against every token the simulator issued. */
  function tokensInHeaders(): string[] {
    const tokens = sim.issuedTokens();
    expect(tokens.length).toBeGreaterThan(0);
    return sim.requests
      .filter((r) => ["list", "publicRenew", "test"].includes(r.operation))
      .flatMap((r) => Object.values(r.headers))
      .filter((value) => tokens.some((token) => value.includes(token)));
  }

  async function everyPublicCall() {
    await runtime.client.test();
    const { certificates } = await runtime.client.listDue();
    const [first] = certificates;
    if (!first) throw new Error("nothing listed");
    await runtime.client.renewListed(first);
    const calls = ["test", "list", "publicRenew"] as const;
    for (const op of calls) expect(sim.requestsFor(op)).toHaveLength(1);
    return calls.map((op) => sim.requestsFor(op)[0]?.headers.authorization);
  }

  it.each<[string, Record<string, string>]>([
    ["by default", {}],
    ["with CERTSCHED_PUBLIC_AUTH=none", { CERTSCHED_PUBLIC_AUTH: "none" }],
  ])("sends no Authorization %s", async (_, env) => {
    sim = await startSimulator({ certificates: SEEDS.slice(-1) });
    runtime = runtimeFor(sim, env);

    expect(await everyPublicCall()).toEqual([undefined, undefined, undefined]);
    expect(tokensInHeaders()).toEqual([]);
    // The tokens did travel, in the body (spec 2.4).
    const body = JSON.parse(sim.requestsFor("test")[0]?.body ?? "{}") as Record<string, string>;
    expect(sim.issuedTokens()).toContain(body.accessToken);
  });

  it("sends the API key as Bearer with CERTSCHED_PUBLIC_AUTH=api-key, and still no token", async () => {
    sim = await startSimulator({ certificates: SEEDS.slice(-1) });
    runtime = runtimeFor(sim, { CERTSCHED_PUBLIC_AUTH: "api-key" });

    const bearer = `Bearer ${sim.options.apiKey}`;
    expect(await everyPublicCall()).toEqual([bearer, bearer, bearer]);
    expect(tokensInHeaders()).toEqual([]);
  });
});

describe("CERTSCHED_PUBLIC_AUTH", () => {
  it.each([
    [undefined, "none"],
    ["none", "none"],
    ["api-key", "api-key"],
  ])("%s reads as %s", (value, expected) => {
    const env = { ...SETTINGS, CERTSCHED_PUBLIC_AUTH: value };
    expect(loadSettings(env).publicAuth).toBe(expected);
  });

  it("refuses another value, naming the setting and what it accepts", () => {
    let thrown: unknown;
    try {
      loadSettings({ ...SETTINGS, CERTSCHED_PUBLIC_AUTH: "management-token" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toEqual([
      { name: "CERTSCHED_PUBLIC_AUTH", message: 'must be "none" or "api-key"' },
    ]);
  });
});

describe("Get Certificate and the key-vault v3 renew, client side", () => {
  const KV = "kv-contoso-com";

  afterEach(async () => {
    await runtime.close();
    await sim.close();
  });

  async function startWithKeyVault() {
    await start([
      ...SEEDS.slice(0, 1),
      {
        certificateName: KV,
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv-certsched",
        expiryDate: inDays(40),
      },
    ]);
  }

  it("gets a record by name: GET, API key as Bearer, no body, no cloud token", async () => {
    await startWithKeyVault();

    const record = await runtime.client.get("links-contoso-com");

    expect(record).toMatchObject({
      certificateName: "links-contoso-com",
      target: "Cloud App Service",
      rootDomain: "contoso.com",
      certificateDownloadUrl: LINKS,
    });
    expect(record.expiryDate).toBeInstanceOf(Date);
    const [sent, ...more] = sim.requestsFor("get");
    expect(more).toEqual([]);
    expect(sent).toMatchObject({
      method: "GET",
      path: `/prod/v3/ssl/certificate/subscription/${sim.options.subscription}/get/certificatename/links-contoso-com`,
      query: "",
      body: "",
    });
    expect(sent?.headers.authorization).toBe(`Bearer ${sim.options.apiKey}`);
    expect(sent?.headers["content-type"]).toBeUndefined();
    expect(sim.requestsFor("token")).toEqual([]);
  });

  it("encodes the name as one path segment", async () => {
    await start([{ certificateName: "a/b?c d", expiryDate: inDays(3) }]);

    const record = await runtime.client.get("a/b?c d");

    expect(record.certificateName).toBe("a/b?c d");
    expect(sim.requestsFor("get")[0]?.path).toMatch(/\/get\/certificatename\/a%2Fb%3Fc%20d$/);
  });

  it.each([
    [".", 'must not be "." or ".."'],
    ["..", 'must not be "." or ".."'],
    ["bad\ud800name", "must be valid Unicode text"],
  ])("refuses the name %j, which no URL path can carry, sending nothing", async (name, rule) => {
    await startWithKeyVault();

    const error = await runtime.client.get(name).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { name: "certificateName", message: expect.stringContaining(rule) },
    ]);
    expect(sim.requestsFor("get")).toEqual([]);
  });

  it("an unknown name is UPSTREAM_REJECTED with the service's words, never retried", async () => {
    await startWithKeyVault();

    const error = await runtime.client.get("nope").then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toMatchObject({
      code: "UPSTREAM_REJECTED",
      upstream: "get",
      status: 404,
      detail: "Certificate nope not found",
    });
    expect((error as Error).message).toBe(
      "get certificate failed: the service answered 404 (no certificate named nope): Certificate nope not found",
    );
    expect(sim.requestsFor("get")).toHaveLength(1);
  });

  it.each<[string, { status: number; body: string; headers?: Record<string, string> }, RegExp]>([
    [
      "HTML",
      {
        status: 200,
        body: "<html><title>Sign in</title></html>",
        headers: { "content-type": "text/html" },
      },
      /with an HTML page/,
    ],
    [
      "not JSON",
      { status: 200, body: "scheduled", headers: { "content-type": "text/plain" } },
      /with text that is not JSON/,
    ],
    [
      "a record without expiryDate",
      {
        status: 200,
        body: JSON.stringify({
          certificateName: "links-contoso-com",
          id: 1,
          subscriptionId: 1,
          target: "x",
          renewal: "y",
        }),
        headers: { "content-type": "application/json" },
      },
      /a record certsched cannot use \(expiryDate is required|a record certsched cannot use \(expiryDate/,
    ],
    [
      "another certificate's record",
      {
        status: 200,
        body: JSON.stringify({
          certificateName: "other",
          id: 1,
          subscriptionId: 1,
          target: "x",
          renewal: "y",
          expiryDate: "2026-12-01T10:00:00.0000000",
        }),
        headers: { "content-type": "application/json" },
      },
      /the record of another certificate/,
    ],
  ])("a 200 that is %s is UPSTREAM_BAD_RESPONSE", async (_, fault, message) => {
    await startWithKeyVault();
    sim.inject("get", fault);

    const error = await runtime.client.get("links-contoso-com").then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toMatchObject({ code: "UPSTREAM_BAD_RESPONSE", upstream: "get", status: 200 });
    expect((error as Error).message).toMatch(message);
  });

  it("renews a key-vault certificate with accessTokenKeyVault when the target is known", async () => {
    await startWithKeyVault();

    await runtime.client.renew(KV, { target: "Cloud Key Vault + DNS" });

    const body = JSON.parse(sim.requestsFor("renew")[0]?.body ?? "{}") as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual([
      "accessToken",
      "accessTokenKeyVault",
      "certificateName",
    ]);
    const vault = await runtime.tokens.token(runtime.settings.vaultResource);
    const management = await runtime.tokens.token(runtime.settings.managementResource);
    expect(body).toEqual({
      certificateName: KV,
      accessToken: management,
      accessTokenKeyVault: vault,
    });
    expect(vault).not.toBe(management);
    expect(sim.renewCallsFor(KV)).toBe(1);
  });

  it.each<[string, string | undefined]>([
    ["the target is unknown", undefined],
    ["the target is the app service", "Cloud App Service"],
    ["the target is another", "Standalone"],
  ])("sends the spec's two fields when %s", async (_, target) => {
    await startWithKeyVault();

    await runtime.client.renew(KV, { target });

    const body = JSON.parse(sim.requestsFor("renew")[0]?.body ?? "{}") as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(["accessToken", "certificateName"]);
    // Only the management token was needed, so only it was requested.
    expect(sim.requestsFor("token")).toHaveLength(1);
  });
});
