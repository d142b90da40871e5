import { randomBytes } from "node:crypto";
import { TableClient, TableServiceClient } from "@azure/data-tables";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../../functions/dashboard.js";
import { getCertificate } from "../../functions/getCertificate.js";
import { getVerifications } from "../../functions/getVerifications.js";
import { listCertificates } from "../../functions/listCertificates.js";
import { listDueCertificates } from "../../functions/listDueCertificates.js";
import { renewDueCertificates } from "../../functions/renewDueCertificates.js";
import { runVerifications } from "../../functions/runVerifications.js";
import { toEventRow } from "../../shared/adapters/storage/rows/historyRow.js";
import { toInventoryRow } from "../../shared/adapters/storage/rows/inventoryRow.js";
import { toRow } from "../../shared/adapters/storage/rows/ledgerRow.js";
import { HISTORY_TABLE } from "../../shared/adapters/storage/tableHistory.js";
import { INVENTORY_TABLE } from "../../shared/adapters/storage/tableInventory.js";
import { LEDGER_TABLE } from "../../shared/adapters/storage/tableLedger.js";
import { REDACTED } from "../../shared/lib/redact/redact.js";
import { DAY_MS } from "../../shared/lib/time.js";
import { sandboxSettings } from "../../sim/index.js";
import type { AppHarness } from "../support/app.js";
import { startHarness } from "../support/app.js";
import { type AzuriteHandle, startAzurite } from "../support/azurite.js";
import { ensureBuilt, runCli } from "../support/cliBuild.js";
import { httpRequest, timer } from "../support/invoke.js";

/*
 * A due list and Get Certificate records that quote the request's accessToken and
 * accessTokenKeyVault in every field. Neither token may come back from the app's HTTP functions,
 * the dashboard, the CLI (a child process: it holds no registry entry for the app's tokens), nor
 * sit in any row of the storage (row keys included). A record whose name quotes them is refused by
 * its id.
 *
 * Over real sockets: the simulator, an Azurite of this file's own, the built CLI as a child.
 */

let azurite: AzuriteHandle;
let app: AppHarness;
const at = (days: number) => new Date(Date.now() + days * DAY_MS);

beforeAll(async () => {
  await ensureBuilt();
  azurite = await startAzurite();
  app = await startHarness({
    certificates: [
      { certificateName: "echo-app", rootDomain: "echo-app.contoso.com", expiryDate: at(3) },
      {
        certificateName: "echo-vault",
        rootDomain: "echo-vault.contoso.com",
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv-echo",
        dnsZoneResourceGroup: "rg-dns",
        expiryDate: at(5),
      },
      { certificateName: "echo-named", rootDomain: "echo-named.contoso.com", expiryDate: at(7) },
    ],
  });
  await app.configure({ AzureWebJobsStorage: azurite.connectionString });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await azurite?.stop();
});

/** Every row of every table in the storage, row keys included, as text. */
async function everyRow(): Promise<string[]> {
  const options = { allowInsecureConnection: true };
  const service = TableServiceClient.fromConnectionString(azurite.connectionString, options);
  const rows: string[] = [];
  for await (const table of service.listTables()) {
    const name = table.name ?? "";
    const client = TableClient.fromConnectionString(azurite.connectionString, name, options);
    for await (const row of client.listEntities()) rows.push(`${name}: ${JSON.stringify(row)}`);
  }
  return rows;
}

/** The CLI as an operator runs it, against the same service and storage, in its own process. */
function cli(args: readonly string[]) {
  return runCli(args, {
    env: { ...sandboxSettings(app.sim), AzureWebJobsStorage: azurite.connectionString },
  });
}

const get = (path: string, params: Record<string, string> = {}) =>
  httpRequest({ method: "GET", path, params });

/** Which of `values` appear in any of `texts` (whitespace removed too). */
function found(texts: readonly string[], values: readonly string[]): string[] {
  return values.filter((v) => texts.some((t) => t.includes(v) || t.replace(/\s/g, "").includes(v)));
}

describe("records that quote the request's tokens", () => {
  it("are stored, keyed, shown and printed with the tokens redacted; a record named by a token is refused by its id", async () => {
    const { sim } = app;
    const echo = { echoTokens: { inNamesOf: ["echo-named"] }, times: Number.POSITIVE_INFINITY };
    sim.inject("list", echo);
    sim.inject("get", echo);
    const named = sim.certificates().find((c) => c.certificateName === "echo-named");

    // The run fails (a record was refused), as a run with a refused record does.
    const failure = await renewDueCertificates(timer(), app.context("renewDueCertificates")).then(
      () => undefined,
      (error: unknown) => error,
    );
    // The echo reached certsched: the list's records quoted the very tokens it sent.
    const sent = JSON.parse(sim.requestsFor("list")[0]?.body ?? "{}") as Record<string, string>;
    const tokens = [sent.accessToken ?? "", sent.accessTokenKeyVault ?? ""];
    expect(tokens.every((t) => t.length > 20)).toBe(true);

    // Renewed as listed, but the record whose name held the tokens: refused, named by its id.
    expect(sim.renewCallsFor("echo-app")).toBe(1);
    expect(sim.renewCallsFor("echo-vault")).toBe(1);
    expect(sim.renewCallsFor("echo-named")).toBe(0);
    expect(failure).toBeInstanceOf(Error);
    const refusal = (failure as Error).message;
    expect(refusal).toContain(
      `certificateName holds a secret certsched sent (an access token or key, quoted back); the record with id ${named?.id} is not renewed, not stored`,
    );

    const replies = [
      await app.call(listCertificates, get("certificates")),
      await app.call(listDueCertificates, get("certificates/due")),
      await app.call(getCertificate, get("certificates/echo-app", { name: "echo-app" })),
      await app.call(
        runVerifications,
        httpRequest({ path: "verifications", query: { wait: "30" } }),
      ),
      await app.call(getVerifications, get("verifications")),
      await app.call(dashboard, get("dashboard")),
    ];
    for (const reply of replies) expect(reply.status, reply.text).toBe(200);
    // Get Certificate's record named by the tokens is no answer: refused, by its id.
    const refused = await app.call(
      getCertificate,
      get("certificates/echo-named", { name: "echo-named" }),
    );
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({
      code: "UPSTREAM_BAD_RESPONSE",
      detail: expect.stringContaining(`a record (id ${named?.id}) whose certificateName holds`),
    });
    replies.push(refused);
    // The tokens were there to be redacted: each read shows the marker where they stood.
    const list = replies[0]?.text ?? "";
    expect(list).toContain("echo-app");
    expect(list).toContain(REDACTED);
    // Renewed, the others have left the due list: the one left is refused there too, by its id.
    expect(replies[1]?.body).toMatchObject({
      certificates: [],
      rejected: [{ id: named?.id, problems: [{ name: "certificateName" }] }],
    });
    expect(replies[2]?.text).toContain(REDACTED);
    expect(replies[5]?.text).toContain(REDACTED);

    const printed = [
      await cli(["status", "--json"]),
      await cli(["status"]),
      await cli(["history", "echo-app"]),
      await cli(["history", "--json"]),
      await cli(["verify", "--json"]),
    ];
    for (const result of printed) expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(printed[0]?.stdout).toContain("echo-app");

    const rows = await everyRow();
    expect(rows.some((r) => r.includes("echo-app"))).toBe(true);
    expect(rows.some((r) => r.includes(REDACTED))).toBe(true);
    // Not stored under its name, nor under any other.
    expect(rows.filter((r) => r.includes("echo-named"))).toEqual([]);

    const texts = [
      ...replies.map((r) => r.text),
      ...printed.flatMap((r) => [r.stdout, r.stderr]),
      ...rows,
      ...app.logs.map((l) => l.message),
    ];
    expect(found(texts, tokens)).toEqual([]);
    expect(found(texts, sim.issuedTokens())).toEqual([]);
  }, 120_000);
});

/** An Entra ID access token's shape: a JWS whose header and payload are base64url JSON. */
function entraJwt(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const header = { typ: "JWT", alg: "RS256", x5t: randomBytes(20).toString("base64url") };
  const payload = {
    aud: "https://management.core.windows.net/",
    oid: randomBytes(16).toString("hex"),
  };
  return `${part(header)}.${part(payload)}.${randomBytes(256).toString("base64url")}`;
}

/** An encrypted token (JWE, five segments). */
function jwe(): string {
  const header = Buffer.from(JSON.stringify({ alg: "RSA-OAEP-256", enc: "A256GCM" })).toString(
    "base64url",
  );
  const b = (n: number) => randomBytes(n).toString("base64url");
  return `${header}.${b(256)}.${b(12)}.${b(300)}.${b(16)}`;
}

describe("rows another process wrote, with tokens this one never held", () => {
  it("are redacted by the tokens' shape on read: HTTP functions, dashboard and a CLI child", async () => {
    const tokens = [entraJwt(), jwe(), `simtok-${randomBytes(24).toString("hex")}`];
    const quote = `accessToken=${tokens[0]}; accessTokenKeyVault=${tokens[1]}; ${tokens[2]}`;
    const now = new Date();
    const name = `foreign-${randomBytes(4).toString("hex")}`;
    const id = 700_000 + Math.floor(Math.random() * 100_000);
    const tables = new Map<string, TableClient>();
    for (const table of [INVENTORY_TABLE, LEDGER_TABLE, HISTORY_TABLE]) {
      const t = TableClient.fromConnectionString(azurite.connectionString, table, {
        allowInsecureConnection: true,
      });
      await t.createTable(); // an existing table is fine (the SDK ignores 409 here)
      tables.set(table, t);
    }
    const client = (table: string) => tables.get(table) as TableClient;
    // Written as an older certsched (or another process) would have: the tokens in every text.
    await client(INVENTORY_TABLE).createEntity(
      toInventoryRow({
        certificateName: name,
        id,
        rootDomain: `${name}.contoso.com ${quote}`,
        target: `Cloud App Service ${quote}`,
        renewal: quote,
        source: "due-list",
        serviceExpiry: at(4),
        firstSeen: now,
        lastSeen: now,
      }),
    );
    await client(LEDGER_TABLE).createEntity(
      toRow({
        id,
        certificateName: name,
        expiryAtRequest: at(4),
        firstRequestedAt: now,
        lastRequestedAt: now,
        outcome: "failed",
        attempts: 1,
        detail: `the service answered 400: ${quote}`,
      }),
    );
    await client(HISTORY_TABLE).createEntity(
      toEventRow(
        {
          certificateName: name,
          at: now,
          event: "failed",
          trigger: "timer",
          runId: "run-written-elsewhere",
          id,
          detail: `the service answered 400: ${quote}`,
        },
        "0001",
      ),
    );

    const replies = [
      await app.call(listCertificates, get("certificates")),
      await app.call(getCertificate, get(`certificates/${name}`, { name })),
      await app.call(dashboard, get("dashboard")),
    ];
    const printed = [
      await cli(["status", "--json"]),
      await cli(["status", name]),
      await cli(["history", name, "--json"]),
      await cli(["history", name]),
    ];
    const texts = [...replies.map((r) => r.text), ...printed.flatMap((r) => [r.stdout, r.stderr])];
    for (const text of texts) expect(text).not.toMatch(/\n\s+at /);
    expect(replies[0]?.text).toContain(name);
    expect(replies[1]?.text).toContain(REDACTED);
    expect(printed[2]?.stdout).toContain(REDACTED);
    expect(found(texts, tokens)).toEqual([]);
  }, 120_000);
});
