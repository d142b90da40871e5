import { randomBytes } from "node:crypto";
import { TableClient } from "@azure/data-tables";
import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Io, type OutputStream, terminalSafe } from "../../cli/io.js";
import { run } from "../../cli/run.js";
import { createCertificate } from "../../functions/createCertificate.js";
import { renewCertificate } from "../../functions/renewCertificate.js";
import { runRenewals } from "../../functions/runRenewals.js";
import { testConnectivity } from "../../functions/testConnectivity.js";
import { tableLedger } from "../../shared/adapters/storage/tableLedger.js";
import { REDACTED, SecretRegistry } from "../../shared/lib/redact/redact.js";
import { DAY_MS } from "../../shared/lib/time.js";
import type { SimOperation, Simulator } from "../../sim/index.js";
import { configureApp, releaseApp, uniqueTableName } from "../support/app.js";
import { propertyRuns } from "../support/fastCheck.js";
import { httpRequest } from "../support/invoke.js";
import { toReply } from "../support/reply.js";
import { type InMemoryTelemetry, inMemoryTelemetry } from "../support/telemetry.js";
import { type Receiver, startReceiver } from "../support/webhookReceiver.js";
import { Capture } from "./support/capture.js";
import { settingsFor, startSim } from "./support/staging.js";

/*
 * Secrets: for random secrets (every character an Azure client secret may hold; an API key and a
 * certificate password of any printable ASCII) and every encoding a server commonly echoes, no text
 * leaving certsched holds the secret or any encoded form of it: HTTP responses, function logs,
 * ledger rows (Azurite), webhook bodies, telemetry, CLI output. The upstream answers 200 quoting
 * the request, the case that was never redacted; the token endpoint answers 400 quoting the
 * form-encoded client secret.
 *
 * The oracle below is written from the encodings' definitions, not from shared/lib/redact/secretForms.ts.
 */

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");
const form = (s: string) => new URLSearchParams({ v: s }).toString().slice(2);
const lowerEscapes = (s: string) => s.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
const halves = (s: string): [string, string] => {
  const half = Math.floor(s.length / 2);
  return [s.slice(0, half), s.slice(half)];
};

/** How an upstream quotes a secret back. */
const ENCODINGS: ReadonlyArray<{
  name: string;
  encode(secret: string): string;
  /** Fewest characters besides whitespace of a secret the encoding applies to (default 12). */
  minLength?: number;
}> = [
  { name: "raw", encode: (s) => s },
  { name: "encodeURIComponent", encode: encodeURIComponent },
  { name: "form-encoded (URLSearchParams)", encode: form },
  { name: "form-encoded, lower-case escapes", encode: (s) => lowerEscapes(form(s)) },
  { name: "base64", encode: b64 },
  { name: "base64 without padding", encode: (s) => b64(s).replace(/=+$/, "") },
  { name: "base64url", encode: b64url },
  {
    name: "base64url with padding",
    encode: (s) => b64(s).replaceAll("+", "-").replaceAll("/", "_"),
  },
  { name: "JSON string escaped", encode: (s) => JSON.stringify(s).slice(1, -1) },
  { name: "split across lines", encode: (s) => halves(s).join("\n  ") },
  { name: "split by a space", encode: (s) => halves(s).join(" ") },
  // Halves of 8 characters or more are secrets of their own; shorter ones are not (README).
  { name: "halves apart", encode: (s) => halves(s).join(" (and later) "), minLength: 16 },
];

/** Every character an Azure client secret may hold. */
const AZURE_SECRET_CHARS = [
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  ".",
  "_",
  "~",
  "-",
];
const PRINTABLE_ASCII = Array.from({ length: 0x7f - 0x20 }, (_, i) =>
  String.fromCharCode(0x20 + i),
);

/**
 * A secret as real ones are: random enough that it (or a half) does not occur by chance in what
 * certsched prints anyway (a UUID's "00000000", a date). A value like "aaaaaaaa" would be found
 * in the oracle's scan without any leak; certsched would still redact it. No leading or trailing
 * space: HTTP trims those from the header that carries the API key.
 */
function distinctive(s: string): boolean {
  const [first, second] = halves(s);
  return (
    s === s.trim() &&
    new Set(s).size >= 8 &&
    (first.length < 8 || (new Set(first).size >= 4 && new Set(second).size >= 4))
  );
}

/**
 * Settings refuse a value that is a whole `<...>` (or a URL whose host holds one) as the
 * sample's unfilled placeholder, naming the setting: such an API key never reaches a request.
 */
const PLACEHOLDER = /^<.*>$|^[a-z][a-z0-9+.-]*:\/\/[^/?#]*<[^<>]*>/is;

const secretOf = (chars: readonly string[], minLength = 12) =>
  fc
    .string({ unit: fc.constantFrom(...chars), minLength, maxLength: 40 })
    .filter(
      (s) => distinctive(s) && s.replace(/\s/g, "").length >= minLength && !PLACEHOLDER.test(s),
    );

const secrets = (minLength = 12) =>
  fc.record({
    clientSecret: secretOf(AZURE_SECRET_CHARS, minLength),
    apiKey: secretOf(PRINTABLE_ASCII, minLength),
    password: secretOf(PRINTABLE_ASCII, minLength),
    webhookFormat: fc.constantFrom("json", "teams", "slack"),
  });

/** Every form the oracle refuses to see: each encoding, and each half of 8 characters or more. */
function forbiddenForms(secret: string): string[] {
  const forms = [
    secret,
    encodeURIComponent(secret),
    form(secret),
    lowerEscapes(form(secret)),
    lowerEscapes(encodeURIComponent(secret)),
    b64(secret),
    b64(secret).replace(/=+$/, ""),
    b64url(secret),
    JSON.stringify(secret).slice(1, -1),
  ];
  const [first, second] = halves(secret.replace(/\s/g, ""));
  if (first.length >= 8) forms.push(first, second);
  return [...new Set(forms)];
}

/** A text and, when it is JSON, every string inside it, decoded. */
function readable(text: string): string[] {
  const out = [text];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return out;
  }
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(parsed);
  return out;
}

interface Found {
  readonly where: string;
  readonly form: string;
}

/** Where any forbidden form of any secret appears, also with whitespace removed. */
function leaksIn(seen: ReadonlyArray<{ where: string; text: string }>, values: string[]): Found[] {
  const forms = values.flatMap(forbiddenForms).map((f) => ({ f, compact: f.replace(/\s/g, "") }));
  const found: Found[] = [];
  for (const { where, text } of seen) {
    for (const t of readable(text)) {
      const compact = t.replace(/\s/g, "");
      for (const { f, compact: c } of forms) {
        if (t.includes(f) || compact.includes(c)) found.push({ where, form: f });
      }
    }
  }
  return found;
}

/** The oracle itself: it sees each form of a secret that nobody redacted. */
describe("the oracle", () => {
  it.for(ENCODINGS)("finds an unredacted secret $name", ({ encode }) => {
    const secret = "Ab~c.D_e-F9g~H8i";
    const seen = [{ where: "x", text: JSON.stringify({ m: `said ${encode(secret)} ok` }) }];
    expect(leaksIn(seen, [secret]).length).toBeGreaterThan(0);
  });
});

/** A registry of its own for the pure property: the process's one is shared with the app. */
describe("redact(), for random secrets in every encoding (no sockets)", () => {
  it.for(ENCODINGS)("$name: nothing of the secret is left", ({ encode, minLength }) => {
    fc.assert(
      fc.property(
        fc.oneof(secretOf(AZURE_SECRET_CHARS, minLength), secretOf(PRINTABLE_ASCII, minLength)),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        (secret, before, after) => {
          const registry = new SecretRegistry();
          registry.register(secret);
          const out = registry.redact(`${before}${encode(secret)}${after}`);
          expect(out).toContain(REDACTED);
          expect(leaksIn([{ where: "redact", text: out }], [secret])).toEqual([]);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Over sockets: the function app, the ledger on Azurite, the webhook, telemetry, the CLI.

const PASSWORD_CERT = "www-contoso-com";
let sim: Simulator;
let receiver: Receiver;

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
  receiver = await startReceiver();
});

afterAll(async () => {
  await releaseApp();
  await Promise.all([sim?.close(), receiver?.close()]);
});

function createBody(password: string): string {
  return JSON.stringify({
    certificateName: PASSWORD_CERT,
    rootDomain: "contoso.com",
    email: "ops@contoso.com",
    password,
    isSAN: false,
    cloudSubscriptionId: "00000000-0000-4000-8000-00000000c0de",
    target: "Cloud Key Vault + DNS",
    challengeType: "dns",
    dnsZoneResourceGroup: "rg-dns",
    keyVaultName: "kv-contoso",
  });
}

/** A CLI Io writing as the real streams do (cli/io.ts), into strings. */
function cliIo(env: Record<string, string>): { io: Io; out: () => string } {
  let text = "";
  const stream: OutputStream = {
    isTTY: false,
    columns: undefined,
    write: (chunk) => {
      text += terminalSafe(chunk);
    },
  };
  return {
    io: {
      env,
      cwd: "/nonexistent-certsched-test-dir",
      stdout: stream,
      stderr: stream,
      untilInterrupted: () => new Promise(() => {}),
    },
    out: () => text,
  };
}

/** The tokens certsched holds now, read from what reached the simulator's last test call. */
function tokensInUse(): { management: string; vault: string } {
  const body = JSON.parse(sim.requestsFor("test").at(-1)?.body ?? "{}") as {
    accessToken?: string;
    accessTokenKeyVault?: string;
  };
  expect(body.accessToken).toBeTruthy();
  return { management: body.accessToken ?? "", vault: body.accessTokenKeyVault ?? "" };
}

/** A 200 in plain text quoting `quoted`, each in the encoding under test. */
function echo(op: SimOperation, quoted: Record<string, string>, encode: (s: string) => string) {
  const body = Object.entries(quoted)
    .map(([what, value]) => `${what}=${encode(value)}`)
    .join("; ");
  sim.inject(op, { status: 200, body: `Accepted. You sent: ${body}`, times: 10 });
}

async function rowsOf(connectionString: string, tableName: string): Promise<string[]> {
  const client = TableClient.fromConnectionString(connectionString, tableName, {
    allowInsecureConnection: true,
  });
  const rows: string[] = [];
  for await (const row of client.listEntities()) rows.push(JSON.stringify(row));
  await client.deleteTable();
  return rows;
}

function spanTexts(telemetry: InMemoryTelemetry): string[] {
  return telemetry
    .spans()
    .flatMap((span) => [
      JSON.stringify(span.attributes),
      JSON.stringify(span.events.map((e) => [e.name, e.attributes])),
      span.status.message ?? "",
      span.name,
    ]);
}

describe("no text leaving certsched holds a secret, when upstreams quote them back", () => {
  // FC_NUM_RUNS is the total over all encodings: each run crosses about 30 sockets.
  const numRuns = Math.max(3, Math.ceil(propertyRuns(3 * ENCODINGS.length) / ENCODINGS.length));

  it.for(ENCODINGS)(
    "$name: responses, logs, ledger rows, webhooks, telemetry and CLI output",
    { timeout: 600_000 },
    async ({ encode, minLength }) => {
      const connectionString = inject("azuriteTableConnectionString");
      const tally = { runs: 0, redactions: 0 };
      await fc.assert(
        fc.asyncProperty(
          secrets(minLength),
          async ({ clientSecret, apiKey, password, webhookFormat }) => {
            const capture = new Capture();
            const tableName = uniqueTableName("redact");
            const telemetry = inMemoryTelemetry();
            const hooksBefore = receiver.received.length;
            const tokensBefore = sim.issuedTokens().length;
            sim.reset();
            sim.setClientSecret(clientSecret);
            const env = settingsFor(sim, {
              CERTSCHED_API_KEY: apiKey,
              CERTSCHED_CLIENT_SECRET: clientSecret,
              CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook/${randomBytes(12).toString("hex")}`,
              CERTSCHED_WEBHOOK_FORMAT: webhookFormat,
              CERTSCHED_NOTIFY_SUCCESS: "true",
            });
            await configureApp(env, {
              ledger: tableLedger({ connectionString, tableName }),
              telemetry: telemetry.telemetry,
            });
            const call = async (handler: Handler, request: HttpRequest) => {
              const reply = toReply(await handler(request, capture.context(handler.name)));
              capture.add(`response:${handler.name}`, reply.text);
              return reply;
            };
            const get = (path: string) => httpRequest({ method: "GET", path });

            // The token endpoint refuses, quoting the form-encoded body it was sent.
            sim.inject("token", {
              status: 400,
              body: `bad request body: grant_type=client_credentials&client_secret=${encode(clientSecret)}`,
              times: 10,
            });
            expect((await call(testConnectivity, get("connectivity"))).status).toBe(503);
            sim.clearFaults();

            // Tokens issued and cached, so every echo below quotes the very ones sent.
            const warm = await call(testConnectivity, get("connectivity"));
            expect(warm.status, warm.text).toBe(200);
            const tokens = tokensInUse();
            const cloud = { accessToken: tokens.management, accessTokenKeyVault: tokens.vault };

            echo("test", cloud, encode);
            expect((await call(testConnectivity, get("connectivity"))).status).toBe(200);

            echo("renew", { apiKey, accessToken: tokens.management }, encode);
            const renewed = await call(
              renewCertificate,
              httpRequest({ path: "certificates/due-a/renew", params: { name: "due-a" } }),
            );
            expect(renewed.status).toBe(202);

            echo("create", { apiKey, ...cloud, password }, encode);
            const created = await call(
              createCertificate,
              httpRequest({
                path: "certificates",
                headers: { "content-type": "application/json" },
                body: createBody(password),
              }),
            );
            expect(created.status, created.text).toBe(202);

            echo("publicRenew", cloud, encode);
            // ?wait: the queued run is swept in this process (no storage here), answered finished.
            const swept = await call(
              runRenewals,
              httpRequest({ path: "renewals", rawQuery: "wait=30" }),
            );
            expect(swept.status).toBe(200);
            expect(sim.requestsFor("publicRenew").length).toBe(2);

            // The CLI builds its own runtime (new tokens): it is sent the secrets it holds.
            const cli = cliIo(env);
            echo("test", { apiKey, clientSecret, ...cloud }, encode);
            expect(await run(["test"], cli.io)).toBe(0);
            echo("renew", { apiKey, clientSecret }, encode);
            expect(await run(["renew", "due-a", "--json"], cli.io)).toBe(0);
            capture.add("cli", cli.out());

            expect(telemetry.spans().length).toBeGreaterThan(0);
            for (const text of spanTexts(telemetry)) capture.add("telemetry", text);
            for (const metric of (await telemetry.collect()).values()) {
              capture.add("telemetry", JSON.stringify(metric.dataPoints.map((p) => p.attributes)));
            }
            await telemetry.close();
            for (const row of await rowsOf(connectionString, tableName)) capture.add("ledger", row);
            for (const hook of receiver.received.slice(hooksBefore))
              capture.add("webhook", hook.body);
            expect(receiver.received.length).toBeGreaterThan(hooksBefore);

            const values = [
              apiKey,
              clientSecret,
              password,
              ...sim.issuedTokens().slice(tokensBefore),
            ];
            expect(leaksIn(capture.seen, values)).toEqual([]);
            // And the echoes were there to be redacted: the marker reached each kind of output.
            for (const where of [
              "response:renewCertificate",
              "response:runRenewals",
              "ledger",
              "cli",
            ]) {
              expect(
                capture.seen.some((s) => s.where === where && s.text.includes(REDACTED)),
                where,
              ).toBe(true);
            }
            tally.runs += 1;
            tally.redactions += capture.seen.filter((s) => s.text.includes(REDACTED)).length;
          },
        ),
        { numRuns },
      );
      // Proof the property ran, and that echoes went through redaction rather than nowhere.
      expect(tally.runs).toBeGreaterThan(0);
      expect(tally.redactions).toBeGreaterThan(tally.runs);
    },
  );
});
