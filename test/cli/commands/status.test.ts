import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTableTransparencyStore } from "../../../shared/adapters/storage/tableTransparency.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type Simulator, sandboxSettings, startSimulator } from "../../../sim/index.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { makeCa, makeLeaf } from "../../support/certificates.js";
import { cliAgainst, inDays, jsonOf, tempDir } from "../../support/cli.js";
import { ensureBuilt, runCli } from "../../support/cliBuild.js";
import { everyState } from "../../support/seenIssuances.js";
import { runInTerminal, screenLines } from "../../support/terminal.js";
import { type RecordingServer, startTlsServer } from "../../support/tlsServers.js";

/**
 * certsched status end to end: the built CLI as a child process, the simulator as the service, an
 * Azurite of this file's own as the app's storage, and real TLS endpoints for the expiry as served.
 * Each test uses names of its own: the storage is shared by the file.
 */

const REFUSAL = "Renewal refused: DNS zone 'contoso-dns' not found in resource group 'rg-dns'";

let azurite: AzuriteHandle;
let sim: Simulator | undefined;
let dir: { path: string; remove(): Promise<void> };
let caFile: string;
const ca = makeCa("certsched status test CA");
const servers: RecordingServer[] = [];

beforeAll(async () => {
  await ensureBuilt();
  azurite = await startAzurite();
  dir = await tempDir();
  caFile = join(dir.path, "ca.pem");
  await writeFile(caFile, ca.cert);
}, 120_000);
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await dir?.remove();
  await azurite?.stop();
});

const storage = () => ({ AzureWebJobsStorage: azurite.connectionString });
const unique = () => `${Math.floor(Math.random() * 1e9)}`;
let nextId = 300_000 + Math.floor(Math.random() * 600_000) * 10;
const id = () => {
  nextId += 1;
  return nextId;
};

interface Status {
  certificateName: string;
  id: number | null;
  status: string;
  why: string;
  critical: boolean;
  expiry: {
    service: string | null;
    serviceDaysLeft: number | null;
    served: string | null;
    servedDaysLeft: number | null;
  };
  ledger: Record<string, unknown> | null;
  verification: Record<string, unknown> | null;
  inventory: Record<string, unknown> | null;
}
interface Document {
  service: string;
  requests7d: number | null;
  certificates: Status[];
  invalid: string[];
  issuances: { unexpected: { id: string; account: string }[]; pending: { id: string }[] };
}

describe("certsched status --json", () => {
  it("one document: the word, both expiries, the ledger row, the verification and the inventory", async () => {
    const u = unique();
    const www = `www-${u}`;
    const shop = `shop-${u}`;
    const refused = `refused-${u}`;
    const servedNotAfter = new Date(
      Math.floor((Date.now() + 40 * DAY_MS + 3_600_000) / 1000) * 1000,
    );
    const good = await startTlsServer(
      makeLeaf(ca, { names: [`www-${u}.test`], notBefore: inDays(-30), notAfter: servedNotAfter }),
    );
    const wrong = await startTlsServer(
      makeLeaf(ca, { names: ["other.test"], notBefore: inDays(-30), notAfter: inDays(60) }),
    );
    servers.push(good, wrong);
    sim = await startSimulator({
      completionDelayMs: 30 * 60_000,
      certificates: [
        { id: id(), certificateName: www, rootDomain: `www-${u}.test`, expiryDate: inDays(5.5) },
        { id: id(), certificateName: shop, rootDomain: `shop-${u}.test`, expiryDate: inDays(6.5) },
        {
          id: id(),
          certificateName: refused,
          rootDomain: `refused-${u}.test`,
          expiryDate: inDays(8.5),
          refuseRenewal: REFUSAL,
        },
      ],
    });
    const env = {
      ...storage(),
      NODE_EXTRA_CA_CERTS: caFile,
      CERTSCHED_VERIFY_CONNECT_TO: [
        `www-${u}.test:443:127.0.0.1:${good.port}`,
        `shop-${u}.test:443:127.0.0.1:${wrong.port}`,
      ].join(","),
    };
    // A sweep renews two and is refused one (and fills the inventory); then a verification
    // records what users see where they look.
    await cliAgainst(sim, ["sweep"], { env });
    await cliAgainst(sim, ["verify"], { env });

    const result = await cliAgainst(sim, ["status", www, shop, refused, `nope-${u}`, "--json"], {
      env,
    });

    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const doc = jsonOf<Document>(result);
    expect(Object.keys(doc).sort()).toEqual([
      "certificates",
      "invalid",
      "issuances",
      "requests7d",
      "service",
    ]);
    expect(doc.issuances).toEqual({ unexpected: expect.any(Array), pending: expect.any(Array) });
    expect(doc.service).toBe("reachable");
    expect(doc.requests7d).toEqual(expect.any(Number));
    expect(doc.invalid).toEqual([]);
    expect(doc.certificates.map((c) => c.certificateName)).toEqual([
      `nope-${u}`,
      refused,
      shop,
      www,
    ]);
    for (const c of doc.certificates) {
      expect(Object.keys(c).sort()).toEqual([
        "account",
        "ari",
        "certificateName",
        "critical",
        "expiry",
        "id",
        "inventory",
        "label",
        "ledger",
        "preflight",
        "status",
        "verification",
        "why",
      ]);
    }
    const [nope, refusedStatus, shopStatus, wwwStatus] = doc.certificates;
    expect(nope).toMatchObject({ status: "unknown", id: null, ledger: null, inventory: null });
    expect(refusedStatus).toMatchObject({
      status: "failed",
      why: expect.stringContaining(REFUSAL),
      expiry: { serviceDaysLeft: 8 },
      ledger: { outcome: "failed", attempts: 1, current: true, stuck: false, reason: "NewRenewal" },
    });
    // Served with a name it does not cover: a browser refuses it, whatever the renewal does.
    expect(shopStatus).toMatchObject({
      status: "failed",
      why: expect.stringContaining("mismatch"),
      verification: { status: "mismatch", source: "tls", domain: `shop-${u}.test` },
      ledger: { outcome: "renewal-scheduled" },
    });
    // Served: 40 days, later than the expiry the renewal was asked for (the service still
    // says 5): it landed where users look, so the ledger's row is shown but decides nothing.
    expect(wwwStatus).toMatchObject({
      status: "ok",
      critical: false,
      expiry: {
        service: expect.any(String),
        serviceDaysLeft: 5,
        served: servedNotAfter.toISOString(),
        servedDaysLeft: 40,
      },
      ledger: {
        outcome: "renewal-scheduled",
        reason: "NewRenewal",
        attempts: 1,
        current: false,
        stuck: false,
        detail: expect.any(String),
        firstRequestedAt: expect.any(String),
        lastRequestedAt: expect.any(String),
      },
      verification: {
        status: "ok",
        source: "tls",
        domain: `www-${u}.test`,
        servedNotAfter: servedNotAfter.toISOString(),
        daysLeft: 40,
      },
      inventory: { rootDomain: `www-${u}.test`, target: "Cloud App Service" },
    });
  });

  it("--offline sends nothing to the service; the count of requests moves only with the due list", async () => {
    const name = `offline-${unique()}`;
    sim = await startSimulator({
      certificates: [{ id: id(), certificateName: name, expiryDate: inDays(5.5) }],
    });
    await cliAgainst(sim, ["renew", name], { env: storage() });
    const sent = sim.requests.length;

    const offline = await cliAgainst(sim, ["status", name, "--offline", "--json"], {
      env: storage(),
    });
    const again = await cliAgainst(sim, ["status", name, "--offline", "--json"], {
      env: storage(),
    });
    const offlineSent = sim.requests.length;
    const online = await cliAgainst(sim, ["status", name, "--json"], { env: storage() });

    expect(offlineSent).toBe(sent);

    // Only the run without --offline asked the service (the due list, and whatever the
    // client sends with it), and the count grew by exactly what it sent.
    const asked = sim.requests.slice(sent).filter((r) => r.operation !== "token");
    expect(asked.map((r) => r.operation)).toContain("list");
    const [a, b, c] = [offline, again, online].map((r) => jsonOf<Document>(r));
    expect(a?.service).toBe("not-asked");
    expect(b?.requests7d).toBe(a?.requests7d);
    expect(c?.service).toBe("reachable");
    expect(c?.requests7d).toBe((a?.requests7d ?? 0) + asked.length);
    expect(a?.certificates[0]).toMatchObject({
      certificateName: name,
      ledger: { outcome: "renewal-scheduled", reason: "ManualRequest" },
    });
  });
});

describe("certsched status when the service fails", () => {
  it("still answers from the storage (exit 0), saying on stderr why the service's expiry is the inventory's", async () => {
    const name = `down-${unique()}`;
    sim = await startSimulator({
      certificates: [{ id: id(), certificateName: name, expiryDate: inDays(5.5) }],
    });
    await cliAgainst(sim, ["sweep"], { env: storage() });
    sim.inject("list", { status: 500, body: "boom", times: Number.POSITIVE_INFINITY });

    const result = await cliAgainst(sim, ["status", name, "--json"], { env: storage() });

    expect(result.code).toBe(0);
    const doc = jsonOf<Document>(result);
    expect(doc.service).toBe("unreachable");
    // The sweep's due list, kept in the inventory, still says what the service said then.
    expect(doc.certificates).toEqual([
      expect.objectContaining({
        certificateName: name,
        status: "pending",
        expiry: expect.objectContaining({ serviceDaysLeft: 5 }),
      }),
    ]);
    expect(result.stderr).toContain("the due list could not be read");
    expect(result.stderr).toContain("500");
  });
});

describe("certsched status for people", () => {
  it("an 80-column table, the reasons in full under it, the request count last", async () => {
    const u = unique();
    const long = `a-certificate-with-a-rather-long-name-that-will-not-fit-${u}`;
    sim = await startSimulator({
      certificates: [
        { id: id(), certificateName: long, expiryDate: inDays(3.5), refuseRenewal: REFUSAL },
        { id: id(), certificateName: `ok-${u}`, expiryDate: inDays(2.5) },
      ],
    });
    const env = { ...sandboxSettings(sim), ...storage() };
    await runCli(["sweep"], { env });

    const result = await runInTerminal(["status", long, `ok-${u}`], { columns: 80, env });

    expect(result.code).toBe(0);
    const lines = screenLines(result.raw).filter((l) => l !== "");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(
      /^CERTIFICATE\s+STATUS\s+PREFLIGHT\s+SERVED\s+SERVICE\s+LAST REQUEST\s+TRIES$/,
    );
    // Wrapped, not cut: the whole cause reads back once the lines are joined.
    const text = lines.join(" ").replace(/\s+/g, " ");
    expect(text).toContain(`${long} failed [failed, NewRenewal]: the last renewal request failed`);
    expect(text).toContain(REFUSAL);
    expect(lines.at(-1)).toMatch(/^Requests sent to the service in the last 7 days: \d+$/);
    for (const secret of [sim.options.apiKey, sim.options.clientSecret, ...sim.issuedTokens()]) {
      expect(result.raw).not.toContain(secret);
    }
  });

  it("in a pipe: the whole name, no colour; a name nobody knows is unknown, with dashes", async () => {
    const name = `piped-${unique()}`;
    sim = await startSimulator({
      certificates: [{ id: id(), certificateName: name, expiryDate: inDays(2.5) }],
    });

    const result = await cliAgainst(sim, ["status", name, "--offline"], { env: storage() });

    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("\u001b[");
    const rows = result.stdout.split("\n").filter((l) => l.startsWith(name));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`^${name}\\s+unknown\\s+-\\s+-\\s+-\\s+-\\s+-$`));
  });

  it("a hostile name from the service never drives the terminal: escapes and bidi controls shown, not sent", async () => {
    const u = unique();
    const hostile = `evil-${u}-\u001b]8;;https://evil.example\u0007click\u001b[2J-\u202eexe.txt`;
    sim = await startSimulator({
      certificates: [{ id: id(), certificateName: hostile, expiryDate: inDays(2.5) }],
    });
    await cliAgainst(sim, ["sweep"], { env: storage() });

    const table = await cliAgainst(sim, ["status", hostile, "--offline"], { env: storage() });
    const json = await cliAgainst(sim, ["status", hostile, "--offline", "--json"], {
      env: storage(),
    });

    expect(table.code).toBe(0);
    for (const raw of ["\u001b", "\u0007", "\u202e"]) {
      expect(table.stdout + table.stderr).not.toContain(raw);
    }
    expect(table.stdout).toContain(`evil-${u}-\\u{1b}]8;;https://evil.example\\u{07}click`);
    expect(table.stdout).toContain("\\u{202e}exe.txt");
    // JSON keeps the name exactly (escaped by JSON itself): programs compare it.
    expect(jsonOf<Document>(json).certificates.map((c) => c.certificateName)).toEqual([hostile]);
  });

  it("a bad CERTSCHED_VERIFY_WARN_DAYS names the setting (exit 2)", async () => {
    const result = await runCli(["status", "--offline"], {
      env: { ...storage(), CERTSCHED_VERIFY_WARN_DAYS: "soon" },
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("CERTSCHED_VERIFY_WARN_DAYS");
    expect(result.stdout).toBe("");
  });

  it("the help fits 80 columns", async () => {
    const result = await runCli(["status", "--help"]);

    expect(result.code).toBe(0);
    for (const line of result.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(result.stdout).toContain("--offline");
  });
});

describe("certsched status: Certificate Transparency", () => {
  it("a red line for the unexpected issuance nobody acknowledged, naming it; --json lists it and the pending one", async () => {
    // The app's store in this Azurite, as the watch leaves it: one issuance in each state.
    const store = createTableTransparencyStore({ connectionString: azurite.connectionString });
    await store.addNew(everyState("default"));
    sim = await startSimulator({ certificates: [] });

    const text = await cliAgainst(sim, ["status", "--offline"], { env: storage() });
    const json = await cliAgainst(sim, ["status", "--offline", "--json"], { env: storage() });

    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "1 unexpected certificate issuance (not acknowledged): certsched ct",
    );
    expect(text.stdout).toContain('issuance u1 for "contoso.com" of account "default"');
    for (const other of ["a1", "p1", "e1"]) expect(text.stdout).not.toContain(`issuance ${other} `);
    const doc = jsonOf<Document>(json);
    expect(doc.issuances.unexpected.map((v) => [v.account, v.id])).toEqual([["default", "u1"]]);
    expect(doc.issuances.pending.map((v) => v.id)).toEqual(["p1"]);
  });
});
