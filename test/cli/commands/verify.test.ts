import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TableClient } from "@azure/data-tables";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HISTORY_TABLE, tableHistory } from "../../../shared/adapters/storage/tableHistory.js";
import {
  INVENTORY_TABLE,
  tableInventory,
} from "../../../shared/adapters/storage/tableInventory.js";
import { LEDGER_TABLE, tableLedger } from "../../../shared/adapters/storage/tableLedger.js";
import { APP_SERVICE } from "../../../shared/core/certificate/fields.js";
import {
  type Hosting,
  type HostingFault,
  type SeedCertificate,
  type SimCertificate,
  type Simulator,
  sandboxSettings,
  startSimulator,
} from "../../../sim/index.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { type Issued, makeCa, makeLeaf } from "../../support/certificates.js";
import {
  cliAgainst,
  expectNoSecret,
  inDays,
  jsonOf,
  secretsOf,
  tempDir,
  writeJson,
} from "../../support/cli.js";
import { type ChildResult, ensureBuilt, runCli } from "../../support/cliBuild.js";
import { CERTIFICATE_PASSWORD, validCreateInputs } from "../../support/createBodies.js";
import { runInTerminal, screenLines } from "../../support/terminal.js";
import {
  closedPort,
  type RecordingServer,
  startSilentServer,
  startTlsServer,
} from "../../support/tlsServers.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
// The children read the real clock: margins of hours keep each status clear of its boundary.
const now = Date.now();
const at = (offsetMs: number) => new Date(Math.floor((now + offsetMs) / 1000) * 1000);

/** Values that must never be printed; the children get them as settings verify does not need. */
const SECRETS = {
  CERTSCHED_API_KEY: "verify-test-api-key-7f3a9c",
  CERTSCHED_CLIENT_SECRET: "verify-test-client-secret-19be",
};

const ca = makeCa("certsched verify test CA");
const unknown = makeCa("an unknown CA");

interface Result {
  domain: string;
  certificateName?: string;
  source: string;
  servedNotAfter?: string;
  daysLeft?: number;
  status: string;
  critical?: boolean;
  issuer?: string;
  detail: string;
}
interface Document {
  results: Result[];
  counts: Record<string, number>;
}

let dir: { path: string; remove(): Promise<void> };
let caFile: string;
const servers: RecordingServer[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = await tempDir();
  caFile = join(dir.path, "extra-ca.pem");
  await writeFile(caFile, ca.cert);
  await ensureBuilt();
}, 120_000);
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await dir.remove();
});

async function serve(issued: Issued): Promise<number> {
  const server = await startTlsServer(issued);
  servers.push(server);
  return server.port;
}

const leaf = (names: string[], notAfter: Date, issuer = ca) =>
  makeLeaf(issuer, { names, notBefore: at(-30 * DAY), notAfter });

/** Domain -> loopback port, as CERTSCHED_VERIFY_CONNECT_TO. */
const connectTo = (ports: Record<string, number>) =>
  Object.entries(ports)
    .map(([host, port]) => `${host}:443:127.0.0.1:${port}`)
    .join(",");

/** `certsched verify`, trusting the test CA as Node defines it (NODE_EXTRA_CA_CERTS), no service settings. */
async function verify(
  args: readonly string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<ChildResult> {
  const result = await runCli(["verify", ...args], {
    env: { NODE_EXTRA_CA_CERTS: caFile, ...SECRETS, ...env },
    ...(cwd ? { cwd } : {}),
  });
  const output = result.stdout + result.stderr;
  for (const secret of Object.values(SECRETS)) expect(output).not.toContain(secret);
  return result;
}

const domains = (...names: string[]) => names.flatMap((n) => ["--domain", n]);

describe("certsched verify --domain (a child process, real TLS on loopback)", () => {
  it("ok: one JSON document with the contract's fields, exit 0, no service settings needed", async () => {
    const notAfter = at(60 * DAY + HOUR);
    const port = await serve(leaf(["www.contoso.test"], notAfter));
    const result = await verify(["--json", ...domains("www.contoso.test")], {
      CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "www.contoso.test": port }),
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const doc = jsonOf<Document>(result);
    expect(Object.keys(doc).sort()).toEqual(["counts", "results"]);
    expect(doc.results).toHaveLength(1);
    const [r] = doc.results;
    expect(r).toMatchObject({
      domain: "www.contoso.test",
      source: "tls",
      servedNotAfter: notAfter.toISOString(),
      daysLeft: 60,
      status: "ok",
      issuer: "CN=certsched verify test CA",
    });
    expect(r?.servedNotAfter).toMatch(ISO_UTC);
    expect(Number.isInteger(r?.daysLeft)).toBe(true);
    expect(typeof r?.detail).toBe("string");
    expect(r).not.toHaveProperty("certificateName");
    expect(doc.counts).toEqual({ ok: 1 });
  });

  it("without NODE_EXTRA_CA_CERTS the same site is untrusted: trust is Node's store plus that file", async () => {
    // The site sends its CA along: without it, its issuer would be nowhere (incomplete-chain).
    const served = leaf(["www.contoso.test"], at(60 * DAY + HOUR));
    const port = await serve({ ...served, cert: served.cert + ca.cert });
    const result = await runCli(["verify", "--json", ...domains("www.contoso.test")], {
      env: { CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "www.contoso.test": port }) },
    });
    expect(result.code).toBe(1);
    expect(jsonOf<Document>(result).results[0]?.status).toBe("untrusted");
    const trusted = await verify(["--json", ...domains("www.contoso.test")], {
      CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "www.contoso.test": port }),
    });
    expect(jsonOf<Document>(trusted).results[0]?.status).toBe("ok");
  });

  it("ok and non-critically expiring exit 0; counts agree with the results", async () => {
    const a = await serve(leaf(["a.contoso.test"], at(60 * DAY + HOUR)));
    const b = await serve(leaf(["*.contoso.test"], at(10 * DAY + HOUR)));
    const result = await verify(["--json", ...domains("a.contoso.test", "b.contoso.test")], {
      CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "a.contoso.test": a, "b.contoso.test": b }),
    });
    expect(result.code).toBe(0);
    const doc = jsonOf<Document>(result);
    expect(doc.results.map((r) => [r.domain, r.status, r.daysLeft])).toEqual([
      ["a.contoso.test", "ok", 60],
      ["b.contoso.test", "expiring", 10],
    ]);
    expect(doc.results[1]?.critical).toBeUndefined();
    expect(doc.counts).toEqual({ ok: 1, expiring: 1 });
  });

  it("critically expiring (below 7 days) exits 1", async () => {
    const port = await serve(leaf(["www.contoso.test"], at(3 * DAY + HOUR)));
    const result = await verify(["--json", ...domains("www.contoso.test")], {
      CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "www.contoso.test": port }),
    });
    expect(result.code).toBe(1);
    expect(jsonOf<Document>(result).results[0]).toMatchObject({
      status: "expiring",
      critical: true,
      daysLeft: 3,
    });
  });

  it("follows CERTSCHED_VERIFY_WARN_DAYS from local.settings.json, like every setting", async () => {
    const port = await serve(leaf(["www.contoso.test"], at(20 * DAY + HOUR)));
    const cwd = await tempDir();
    closers.push(cwd.remove);
    await writeJson(join(cwd.path, "local.settings.json"), {
      Values: {
        CERTSCHED_VERIFY_WARN_DAYS: "30",
        CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "www.contoso.test": port }),
      },
    });
    const result = await verify(["--json", ...domains("www.contoso.test")], {}, cwd.path);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(jsonOf<Document>(result).results[0]).toMatchObject({ status: "expiring", daysLeft: 20 });
  });

  it("expired, mismatch, untrusted and unreachable: each exit 1, one result per domain", async () => {
    const expired = await serve(leaf(["expired.contoso.test"], at(-HOUR)));
    const mismatch = await serve(leaf(["other.test"], at(60 * DAY + HOUR)));
    const unknownLeaf = leaf(["untrusted.contoso.test"], at(60 * DAY + HOUR), unknown);
    const untrusted = await serve({ ...unknownLeaf, cert: unknownLeaf.cert + unknown.cert });
    const closed = await closedPort();
    const ports = {
      "expired.contoso.test": expired,
      "mismatch.contoso.test": mismatch,
      "untrusted.contoso.test": untrusted,
      "gone.contoso.test": closed,
    };
    const all = Object.keys(ports);
    const result = await verify(["--json", ...domains(...all, "expired.contoso.test")], {
      CERTSCHED_VERIFY_CONNECT_TO: connectTo(ports),
    });
    expect(result.code).toBe(1);
    const doc = jsonOf<Document>(result);
    expect(doc.results.map((r) => [r.domain, r.status])).toEqual([
      ["expired.contoso.test", "expired"],
      ["mismatch.contoso.test", "mismatch"],
      ["untrusted.contoso.test", "untrusted"],
      ["gone.contoso.test", "unreachable"],
    ]);
    expect(doc.counts).toEqual({ expired: 1, mismatch: 1, untrusted: 1, unreachable: 1 });
    const [exp, mis, unt, gone] = doc.results;
    expect(exp).toMatchObject({ daysLeft: -1, servedNotAfter: at(-HOUR).toISOString() });
    expect(mis?.daysLeft).toBe(60);
    expect(unt?.servedNotAfter).toMatch(ISO_UTC);
    // Nothing was read from an unreachable endpoint.
    expect(gone).not.toHaveProperty("servedNotAfter");
    expect(gone).not.toHaveProperty("daysLeft");
    expect(gone?.detail).toBe(`cannot connect to 127.0.0.1:${closed} (ECONNREFUSED)`);
    // Each alone decides the exit code too.
    for (const domain of all) {
      const alone = await verify(["--json", ...domains(domain)], {
        CERTSCHED_VERIFY_CONNECT_TO: connectTo(ports),
      });
      expect(alone.code, domain).toBe(1);
    }
  });

  it("one result per domain however it is written: case, a trailing dot, the default port", async () => {
    const port = await serve(leaf(["www.contoso.test"], at(60 * DAY + HOUR)));
    const result = await verify(
      [
        "--json",
        ...domains("www.contoso.test", "WWW.contoso.test.", "www.contoso.test:443", "[::1]:9"),
        ...domains("[0:0:0:0:0:0:0:1]:9"),
      ],
      { CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "www.contoso.test": port }) },
    );
    const doc = jsonOf<Document>(result);
    expect(doc.results.map((r) => r.domain)).toEqual(["www.contoso.test", "[::1]:9"]);
    expect(doc.counts).toEqual({ ok: 1, unreachable: 1 });
  });

  it("IPv6: --domain [::1]:8443, matched by an IPv6 CERTSCHED_VERIFY_CONNECT_TO entry, checked against the IP entry", async () => {
    const port = await serve(leaf(["::1"], at(60 * DAY + HOUR)));
    const result = await verify(["--json", ...domains("[::1]:8443")], {
      CERTSCHED_VERIFY_CONNECT_TO: `[::1]:8443:127.0.0.1:${port}`,
    });
    expect(result.code).toBe(0);
    expect(jsonOf<Document>(result).results).toMatchObject([
      { domain: "[::1]:8443", source: "tls", status: "ok", daysLeft: 60 },
    ]);
  });

  it("IPv6: a certificate for another address, or for a name only, does not cover [::1] (on Node 20 and 22 alike)", async () => {
    for (const names of [["::2"], ["localhost"]]) {
      const port = await serve(leaf(names, at(60 * DAY + HOUR)));
      const result = await verify(["--json", ...domains("[::1]:8443")], {
        CERTSCHED_VERIFY_CONNECT_TO: `[::1]:8443:127.0.0.1:${port}`,
      });
      expect(result.code, names[0]).toBe(1);
      expect(jsonOf<Document>(result).results, names[0]).toMatchObject([
        { domain: "[::1]:8443", status: "mismatch" },
      ]);
    }
  });

  it("an internationalized name is checked in its ASCII form (IDNA), shown as written", async () => {
    const port = await serve(leaf(["xn--bcher-kva.contoso.test"], at(60 * DAY + HOUR)));
    const result = await verify(["--json", ...domains("bücher.contoso.test")], {
      CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "xn--bcher-kva.contoso.test": port }),
    });
    expect(result.code).toBe(0);
    expect(jsonOf<Document>(result).results).toMatchObject([
      { domain: "bücher.contoso.test", status: "ok", daysLeft: 60 },
    ]);
  });

  it("a server that never completes the handshake is unreachable within --timeout (exit 1)", async () => {
    const silent = await startSilentServer();
    closers.push(() => silent.close());
    const result = await verify(["--json", "--timeout", "300ms", ...domains("www.contoso.test")], {
      CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "www.contoso.test": silent.port }),
    });
    expect(result.code).toBe(1);
    expect(jsonOf<Document>(result).results[0]).toMatchObject({
      status: "unreachable",
      detail: `no TLS handshake with 127.0.0.1:${silent.port} in time: no TLS handshake within 300 ms`,
    });
  });

  it("a port in --domain is where the name is looked up in CERTSCHED_VERIFY_CONNECT_TO", async () => {
    const port = await serve(leaf(["www.contoso.test"], at(60 * DAY + HOUR)));
    const result = await verify(["--json", ...domains("www.contoso.test:8443")], {
      CERTSCHED_VERIFY_CONNECT_TO: `www.contoso.test:8443:127.0.0.1:${port}`,
    });
    expect(result.code).toBe(0);
    expect(jsonOf<Document>(result).results[0]).toMatchObject({
      domain: "www.contoso.test:8443",
      status: "ok",
    });
  });

  it("for people: a table, the cause and what to do on lines of their own", async () => {
    const ok = await serve(leaf(["ok.contoso.test"], at(60 * DAY + HOUR)));
    const bad = await serve(leaf(["other.test"], at(60 * DAY + HOUR)));
    const result = await verify(domains("ok.contoso.test", "bad.contoso.test"), {
      CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "ok.contoso.test": ok, "bad.contoso.test": bad }),
    });
    expect(result.code).toBe(1);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^DOMAIN\s+STATUS\s+EXPIRES \(UTC\)\s+ISSUER$/);
    expect(lines[1]).toMatch(
      /^ok\.contoso\.test\s+ok\s+\d{4}-\d\d-\d\d \(60 days left\)\s+certsched verify test CA$/,
    );
    expect(result.stdout).toContain(
      "\nbad.contoso.test mismatch:\n  the certificate served does not cover bad.contoso.test: it names DNS:other.test\n  Bind a certificate",
    );
    expect(result.stdout).toContain("\n2 checked: 1 mismatch, 1 ok.\n");
  });

  it("fits 80 columns in a terminal", async () => {
    const long = "a-rather-long-host-name-for-a-terminal-table.subdomain.contoso.test";
    const port = await serve(leaf([long], at(3 * DAY + HOUR)));
    const result = await runInTerminal(["verify", ...domains(long)], {
      columns: 80,
      env: {
        NODE_EXTRA_CA_CERTS: caFile,
        CERTSCHED_VERIFY_CONNECT_TO: connectTo({ [long]: port }),
      },
    });
    expect(result.code).toBe(1);
    const lines = screenLines(result.raw);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(
      lines.some((l) => l.includes("expiring (critical)") && l.includes("(3 days left)")),
    ).toBe(true);
  });
});

describe("certsched verify: usage and configuration errors exit 2", () => {
  it("without --domain and without the service's settings: names what is missing", async () => {
    const result = await verify([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("- CERTSCHED_BASE_URL: is required");
    expect(result.stdout).toBe("");
  });

  it("a bad --domain names the flag and the rule; --json gets one error document", async () => {
    const result = await verify(["--json", ...domains("https://www.contoso.test", "a.test:70000")]);
    expect(result.code).toBe(2);
    const doc = jsonOf<{ error: { code: string; message: string } }>(result);
    expect(doc.error.code).toBe("USAGE");
    expect(doc.error.message).toContain('--domain "https://www.contoso.test" must be NAME[:PORT]');
    expect(doc.error.message).toContain('--domain "a.test:70000" has port "70000"');
  });

  it("a bad CERTSCHED_VERIFY_CONNECT_TO names the setting and the entry", async () => {
    const result = await verify(domains("www.contoso.test"), {
      CERTSCHED_VERIFY_CONNECT_TO: "www.contoso.test:443",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '- CERTSCHED_VERIFY_CONNECT_TO: entry 1 of 1 ("www.contoso.test:443") must have four fields, HOST1:PORT1:HOST2:PORT2',
    );
  });

  it("a bad --timeout names the flag", async () => {
    const result = await verify(["--timeout", "forever", ...domains("www.contoso.test")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--timeout must be a duration");
  });

  it("every help text fits 80 columns", async () => {
    const result = await runCli(["verify", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("--domain NAME[:PORT]");
    for (const line of result.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it("does not warn about its own settings", async () => {
    const port = await serve(leaf(["www.contoso.test"], at(60 * DAY + HOUR)));
    const result = await verify(domains("www.contoso.test"), {
      CERTSCHED_VERIFY_CONNECT_TO: connectTo({ "www.contoso.test": port }),
      CERTSCHED_VERIFY_WARN_DAYS: "14",
      CERTSCHED_VERIFY_WINDOW: "2h",
      CERTSCHED_VERIFY_UNREACHABLE_AFTER: "24h",
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
  });
});

describe("certsched verify without --domain: the service's current due list", () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it("checks each App Service certificate's rootDomain, names the certificate; what it cannot look at is unverifiable (exit unaffected)", async () => {
    const www = await serve(leaf(["www.fabrikam.test"], at(10 * DAY + HOUR)));
    const shop = await serve(leaf(["other.test"], at(60 * DAY + HOUR)));
    const shopFixed = await serve(leaf(["shop.fabrikam.test"], at(60 * DAY + HOUR)));
    sim = await startSimulator({
      certificates: [
        { certificateName: "fabrikam-www", rootDomain: "www.fabrikam.test", expiryDate: inDays(5) },
        {
          certificateName: "fabrikam-shop",
          rootDomain: "shop.fabrikam.test",
          expiryDate: inDays(6),
        },
        {
          certificateName: "fabrikam-dns",
          rootDomain: "dns.fabrikam.test",
          target: "Cloud DNS",
          expiryDate: inDays(4),
        },
        { certificateName: "no-domain", expiryDate: inDays(3) },
      ],
    });
    const env = {
      ...sandboxSettings(sim),
      NODE_EXTRA_CA_CERTS: caFile,
      CERTSCHED_VERIFY_CONNECT_TO: connectTo({
        "www.fabrikam.test": www,
        "shop.fabrikam.test": shop,
      }),
    };
    const result = await runCli(["verify", "--json"], { env });
    expectNoSecret(result, sim);
    expect(result.code).toBe(1);
    const doc = jsonOf<Document>(result);
    expect(doc.results.map((r) => [r.certificateName, r.domain, r.status, r.daysLeft])).toEqual([
      ["fabrikam-www", "www.fabrikam.test", "expiring", 10],
      ["fabrikam-shop", "shop.fabrikam.test", "mismatch", 60],
      ["fabrikam-dns", "dns.fabrikam.test", "unverifiable", undefined],
      ["no-domain", "no-domain", "unverifiable", undefined],
    ]);
    expect(doc.counts).toEqual({ mismatch: 1, expiring: 1, unverifiable: 2 });
    expect(doc.results[2]?.detail).toContain('target "Cloud DNS" has no endpoint or vault');
    expect(doc.results[3]?.detail).toContain("the service lists no rootDomain for it");

    // Unverifiable never fails the run: once the binding is fixed, exit 0.
    const fixed = connectTo({ "www.fabrikam.test": www, "shop.fabrikam.test": shopFixed });
    const fine = await runCli(["verify"], { env: { ...env, CERTSCHED_VERIFY_CONNECT_TO: fixed } });
    expectNoSecret(fine, sim);
    expect(fine.code).toBe(0);
    expect(fine.stdout).toMatch(/no-domain\s+unverifiable/);
    expect(fine.stdout).toContain("no-domain unverifiable:");
    expect(fine.stdout).toContain("2 unverifiable.");
  });

  it("a due list naming 127.0.0.1:PORT or localhost:PORT opens no connection: one 'not probed' answer, exit 0", async () => {
    const open = await startTlsServer(leaf(["127.0.0.1", "localhost"], at(60 * DAY)));
    servers.push(open);
    const closed = await closedPort();
    const silent = await startSilentServer();
    closers.push(() => silent.close());
    const ports = [open.port, closed, silent.port];
    sim = await startSimulator({
      certificates: ports.flatMap((port, i) => [
        { certificateName: `ip-${i}`, rootDomain: `127.0.0.1:${port}`, expiryDate: inDays(5) },
        { certificateName: `lh-${i}`, rootDomain: `localhost:${port}`, expiryDate: inDays(5) },
      ]),
    });
    const result = await runCli(["verify", "--json"], {
      env: { ...sandboxSettings(sim), NODE_EXTRA_CA_CERTS: caFile },
    });
    expectNoSecret(result, sim);
    expect(result.code).toBe(0);
    const doc = jsonOf<Document>(result);
    expect(doc.counts).toEqual({ unverifiable: 6 });
    // Open, closed or silent: the same words, so nothing about the port can be read back.
    const shapes = new Set(
      doc.results.map((r) => r.detail.replace(/"[^"]*"/, '"NAME"').replace(/\d+/g, "N")),
    );
    expect(shapes).toEqual(
      new Set([
        'not probed: its domain "NAME" is refused because it carries a port: a name from the service is probed only as a DNS host name on port N at a public address; name the endpoint in CERTSCHED_WATCH or route it with CERTSCHED_VERIFY_CONNECT_TO to check it anyway',
      ]),
    );
    expect(open.handshakes()).toBe(0);
  });

  it("nothing due, nothing stored, nothing watched: nothing to verify, exit 0", async () => {
    sim = await startSimulator({ certificates: [] });
    const result = await cliAgainst(sim, ["verify"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      "Nothing to verify: the inventory is empty, nothing is watched and no certificate is due.\n",
    );
  });

  it("the list failing is an operation failure (exit 1), not a verification result", async () => {
    sim = await startSimulator({ certificates: [] });
    sim.inject("list", { status: 500, body: "boom", times: Number.POSITIVE_INFINITY });
    const result = await cliAgainst(sim, ["verify", "--json"]);
    expect(result.code).toBe(1);
    expect(jsonOf<{ error: { code: string } }>(result).error.code).toBe("UPSTREAM_FAILED");
  });
});

describe("certsched verify without --domain: the inventory in Table storage (Azurite)", () => {
  let sim: Simulator | undefined;
  let azurite: AzuriteHandle | undefined;
  let hostingCa: string;
  afterEach(async () => {
    // No row the CLI wrote (inventory, history, ledger) carries a secret or token of the service's.
    if (sim && azurite) {
      const rows: unknown[] = [];
      for (const table of [INVENTORY_TABLE, HISTORY_TABLE, LEDGER_TABLE]) {
        const client = TableClient.fromConnectionString(azurite.connectionString, table, {
          allowInsecureConnection: true,
        });
        try {
          for await (const row of client.listEntities()) rows.push(row);
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode !== 404) throw error;
        }
      }
      const text = JSON.stringify(rows);
      for (const secret of [...secretsOf(sim), CERTIFICATE_PASSWORD])
        expect(text).not.toContain(secret);
    }
    await sim?.close();
    await azurite?.stop();
    sim = undefined;
    azurite = undefined;
  });

  /** The simulator with its hosting side, an Azurite of this test's own, and the CLI's settings. */
  async function world(certificates: SeedCertificate[], faults: Record<string, HostingFault> = {}) {
    azurite = await startAzurite();
    sim = await startSimulator({ certificates, hosting: { faults } });
    const hosting = sim.hosting as Hosting;
    hostingCa = join(dir.path, `hosting-${hosting.port}.pem`);
    await writeFile(hostingCa, hosting.caPem);
    const connectionString = azurite.connectionString;
    const env = {
      AzureWebJobsStorage: connectionString,
      NODE_EXTRA_CA_CERTS: hostingCa,
      CERTSCHED_VERIFY_CONNECT_TO: hosting.connectTo,
      CERTSCHED_HTTP_TIMEOUT: "10s",
    };
    const s = sim;
    const cli = (args: readonly string[], more: Record<string, string> = {}) =>
      cliAgainst(s, args, { env: { ...env, ...more } });
    return {
      sim: s,
      hosting,
      cli,
      inventory: tableInventory({ connectionString }),
      ledger: tableLedger({ connectionString }),
      history: tableHistory({ connectionString }),
    };
  }

  it("a sweep in one process, verify in another: a certificate no longer due is still watched; results and changes are recorded", async () => {
    const w = await world(
      [
        { certificateName: "landed", rootDomain: "landed.inv.test", expiryDate: inDays(5) },
        { certificateName: "kept-old", rootDomain: "kept.inv.test", expiryDate: inDays(6) },
      ],
      { "kept-old": "keep-old-certificate" },
    );
    const sweep = await w.cli(["sweep", "--json"]);
    expect(sweep.code).toBe(0);
    // The renewals completed at once: nothing is due any more.
    const due = await w.cli(["due", "--json"]);
    expect(jsonOf<{ certificates: unknown[] }>(due).certificates).toEqual([]);

    const result = await w.cli(["verify", "--json"]);
    expect(result.code).toBe(0);
    const doc = jsonOf<Document>(result);
    expect(doc.results.map((r) => [r.certificateName, r.domain, r.status])).toEqual([
      ["kept-old", "kept.inv.test", "pending"],
      ["landed", "landed.inv.test", "ok"],
    ]);
    expect(doc.results[0]?.detail).toContain("waiting up to 2 h (CERTSCHED_VERIFY_WINDOW)");

    const stored = await w.inventory.list();
    expect(stored.invalid).toEqual([]);
    expect(stored.items.map((r) => [r.certificateName, r.lastVerification?.status])).toEqual([
      ["kept-old", "pending"],
      ["landed", "ok"],
    ]);
    const events = (await w.history.events({ since: new Date(0) })).items.filter(
      (e) => e.event === "verified",
    );
    expect(events.map((e) => [e.certificateName, e.reason, e.trigger]).sort()).toEqual([
      ["kept-old", "pending", "cli"],
      ["landed", "ok", "cli"],
    ]);
    // Nothing changed: a second run records no new event.
    await w.cli(["verify", "--json"]);
    const again = (await w.history.events({ since: new Date(0) })).items.filter(
      (e) => e.event === "verified",
    );
    expect(again).toHaveLength(2);
  });

  it("not-landed once the window has passed since the ledger's accepted renewal: exit 1, the cause named", async () => {
    const w = await world([
      { certificateName: "late", rootDomain: "late.inv.test", expiryDate: inDays(5) },
    ]);
    const cert = w.sim.certificates()[0] as SimCertificate;
    // What a sweep wrote three hours ago (the child reads the real clock, so the row is dated).
    const acceptedAt = new Date(Date.now() - 3 * HOUR);
    await w.ledger.open();
    await w.ledger.write(
      {
        id: cert.id,
        certificateName: "late",
        expiryAtRequest: cert.expiryDate,
        firstRequestedAt: acceptedAt,
        lastRequestedAt: acceptedAt,
        outcome: "renewal-scheduled",
        attempts: 1,
        detail: "scheduled",
        reason: "NewRenewal",
      },
      undefined,
    );

    const json = await w.cli(["verify", "--json"]);
    const text = await w.cli(["verify"]);

    expect(json.code).toBe(1);
    const [late] = jsonOf<Document>(json).results;
    expect(late).toMatchObject({
      certificateName: "late",
      domain: "late.inv.test",
      status: "not-landed",
    });
    expect(late?.detail).toContain(`renewal accepted at ${acceptedAt.toISOString()}`);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("late.inv.test not-landed:");
    expect(text.stdout).toContain("update the binding");
    const events = (await w.history.events({ certificateName: "late", since: new Date(0) })).items;
    expect(events.map((e) => [e.event, e.reason])).toContainEqual(["not-landed", "not-landed"]);
  });

  it("the unreachable grace is counted from the first failure on record: within it exit 0, past it exit 1", async () => {
    const w = await world(
      [
        // Not due: only the inventory knows them.
        { certificateName: "down-short", rootDomain: "short.inv.test", expiryDate: inDays(60) },
        { certificateName: "down-long", rootDomain: "long.inv.test", expiryDate: inDays(60) },
      ],
      { "down-short": "unreachable", "down-long": "unreachable" },
    );
    const base = Date.now();
    const seenAt = new Date(base - 30 * HOUR);
    const since = (hours: number) => new Date(base - hours * HOUR);
    const down = (domain: string, hours: number) => ({
      at: since(hours),
      status: "unreachable" as const,
      source: "tls" as const,
      domain,
      detail: "cannot connect",
      unreachableSince: since(hours),
    });
    await w.inventory.upsert([
      {
        certificateName: "down-short",
        rootDomain: "short.inv.test",
        target: APP_SERVICE,
        source: "due-list",
        seenAt,
      },
    ]);
    await w.inventory.recordVerification("down-short", down("short.inv.test", 1));

    const within = await w.cli(["verify", "--json"]);
    expect(within.code).toBe(0);
    expect(jsonOf<Document & { results: { pastGrace?: boolean }[] }>(within).results).toEqual([
      expect.objectContaining({
        certificateName: "down-short",
        status: "unreachable",
        pastGrace: false,
      }),
    ]);
    // Still the first failure's time: the grace is not restarted by the next attempt.
    expect((await w.inventory.get("down-short"))?.lastVerification?.unreachableSince).toEqual(
      since(1),
    );

    await w.inventory.upsert([
      {
        certificateName: "down-long",
        rootDomain: "long.inv.test",
        target: APP_SERVICE,
        source: "due-list",
        seenAt,
      },
    ]);
    await w.inventory.recordVerification("down-long", down("long.inv.test", 25));
    const past = await w.cli(["verify", "--json"]);
    expect(past.code).toBe(1);
    const results = jsonOf<{ results: (Result & { pastGrace?: boolean })[] }>(past).results;
    expect(results.map((r) => [r.certificateName, r.status, r.pastGrace])).toEqual([
      ["down-long", "unreachable", true],
      ["down-short", "unreachable", false],
    ]);
    const text = await w.cli(["verify"]);
    expect(text.stdout).toContain("long.inv.test unreachable (past grace):");
  });

  it("CERTSCHED_WATCH endpoints and CERTSCHED_WATCH_CERTIFICATES (through Get Certificate) are verified and kept", async () => {
    const w = await world([
      // Neither is due: only the watch settings bring them in.
      { certificateName: "watched-site", rootDomain: "site.inv.test", expiryDate: inDays(50) },
      { certificateName: "named", rootDomain: "named.inv.test", expiryDate: inDays(70) },
    ]);
    const watch = { CERTSCHED_WATCH: "site.inv.test", CERTSCHED_WATCH_CERTIFICATES: "named" };

    const result = await w.cli(["verify", "--json"], watch);

    expect(result.code).toBe(0);
    const doc = jsonOf<Document>(result);
    expect(doc.results.map((r) => [r.certificateName, r.domain, r.status, r.daysLeft])).toEqual([
      ["named", "named.inv.test", "ok", 69],
      [undefined, "site.inv.test", "ok", 49],
    ]);
    expect(w.sim.requestsFor("get")).toHaveLength(1);
    expect(await w.inventory.get("named")).toMatchObject({
      source: "get",
      target: APP_SERVICE,
      rootDomain: "named.inv.test",
    });
    expect((await w.inventory.get("watch:site.inv.test"))?.lastVerification?.status).toBe("ok");
    // The next run uses what Get said: no second request to the service.
    await w.cli(["verify", "--json"], watch);
    expect(w.sim.requestsFor("get")).toHaveLength(1);
  });

  it("a certificate created or renewed through the CLI is watched from then on", async () => {
    const w = await world([
      // Not due: known to verification only because it is renewed by name.
      { certificateName: "by-name", rootDomain: "byname.inv.test", expiryDate: inDays(40) },
    ]);
    const request = join(dir.path, `create-${w.hosting.port}.json`);
    await writeJson(request, {
      ...validCreateInputs().appServiceHttp,
      certificateName: "made-here",
      rootDomain: "made.inv.test",
    });

    const created = await w.cli(["create", "--file", request, "--json"]);
    const renewed = await w.cli(["renew", "by-name", "--json"]);

    expect([created.code, renewed.code]).toEqual([0, 0]);
    expect(await w.inventory.get("made-here")).toMatchObject({
      source: "created",
      target: APP_SERVICE,
      rootDomain: "made.inv.test",
    });
    expect(await w.inventory.get("by-name")).toMatchObject({
      source: "renewed",
      rootDomain: "byname.inv.test",
    });
    const result = await w.cli(["verify", "--json"]);
    expect(
      jsonOf<Document>(result).results.map((r) => [r.certificateName, r.domain, r.status]),
    ).toEqual([
      // Renewed a moment ago and the new certificate already served: past the old expiry, ok.
      ["by-name", "byname.inv.test", "ok"],
      ["made-here", "made.inv.test", "ok"],
    ]);
    expect(result.stdout + created.stdout).not.toContain(CERTIFICATE_PASSWORD);
  });

  it("a bad CERTSCHED_WATCH entry is a configuration error (exit 2) naming the setting and the entry", async () => {
    const w = await world([]);
    const result = await w.cli(["verify"], {
      CERTSCHED_WATCH: "ok.inv.test,https://bad.inv.test/",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("CERTSCHED_WATCH");
    expect(result.stderr).toContain("https://bad.inv.test/");
    expect(result.stderr).toContain("not a URL");
  });
});
