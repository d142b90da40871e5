import { afterEach, describe, expect, inject, it } from "vitest";
import { COMMON_OPTIONS } from "../../../cli/command.js";
import { preflightCommandWith } from "../../../cli/commands/preflight.js";
import { reportFailure } from "../../../cli/failure.js";
import type { Io, OutputStream } from "../../../cli/io.js";
import { visibleWidth } from "../../../cli/output/text.js";
import { parseCommandArgs } from "../../../cli/usage.js";
import { tableInventory } from "../../../shared/adapters/storage/tableInventory.js";
import type { Seams } from "../../../shared/app/seams.js";
import type { Inventory, InventoryUpdate } from "../../../shared/core/ports/inventory.js";
import type { PreflightProbes } from "../../../shared/core/ports/preflightProbes.js";
import { PREFLIGHT_ADVICE } from "../../../shared/core/preflight/advice.js";
import { MAX_CHECK_DETAIL } from "../../../shared/core/preflight/preflight.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import type {
  CheckOutcome,
  PreflightCheckFunctions,
} from "../../../shared/usecases/preflightChecks/checkTypes.js";
import { type Simulator, sandboxSettings, startSimulator } from "../../../sim/index.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { uniqueTableName } from "../../support/app.js";
import { secretsOf } from "../../support/cli.js";

/*
 * certsched preflight in-process, with check functions of the test's own (the real ones and
 * their probes have their own suites): what a person and a script see for each status, the exit
 * codes, --account and --certificate, over the simulator (the service) and Azurite (the
 * inventory the command reads and writes). The built CLI's own runs are in preflight.test.ts.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

const connectionString = () => inject("azuriteTableConnectionString");

let sim: Simulator | undefined;
let accounts: SimAccounts | undefined;
afterEach(async () => {
  await sim?.close();
  await accounts?.close();
  sim = undefined;
  accounts = undefined;
});

/** What the checks below decide from: the domain's first label. */
const CAA_FORBIDS = "forbidden";
const SLOW = "slow";

const pass = (check: CheckOutcome["check"]["check"], detail = "ok"): CheckOutcome => ({
  check: { check, status: "pass", detail },
});

/** Checks that decide by the domain's name, as a real CAA lookup would by its records. */
const checks: PreflightCheckFunctions = {
  caa: async (subject) => {
    const label = subject.rootDomain.split(".")[0];
    if (label === CAA_FORBIDS) {
      return {
        check: {
          check: "caa",
          status: "fail",
          reason: "caa-forbids",
          detail: `CAA at ${subject.rootDomain}: 0 issue "digicert.com" (letsencrypt.org not allowed)`,
        },
      };
    }
    if (label === SLOW) {
      return {
        check: { check: "caa", status: "unknown", detail: "no DNS answer within 5s" },
      };
    }
    return pass("caa");
  },
  dnsZone: async (subject) => ({
    ...pass("dns-zone"),
    zone: { name: subject.rootDomain, nameServers: ["ns1-01.azure-dns.com"] },
  }),
  delegation: async () => pass("dns-delegation"),
  appBinding: async () => pass("app-binding"),
  httpChallenge: async () => pass("http-challenge"),
  access: () => pass("access"),
};

/** The checks above never reach a probe: one that is called is a failure of the test. */
const unused = () => {
  throw new Error("a probe was called: the test's checks do not use probes");
};
const probes: PreflightProbes = {
  dns: { caa: unused, ns: unused },
  arm: { dnsZone: unused, hostNameBindings: unused, sites: unused },
  challenge: { reach: unused },
};

function capture(columns?: number): OutputStream & { text: string } {
  const stream = {
    text: "",
    isTTY: columns !== undefined,
    columns,
    write(chunk: string) {
      stream.text += chunk;
    },
  };
  return stream;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `certsched preflight <argv>` as cli/run.ts runs a command: failures reported the same way. */
async function preflight(
  argv: readonly string[],
  env: Record<string, string>,
  seams: Seams,
  columns?: number,
): Promise<Ran> {
  const command = preflightCommandWith({ seams: { preflightProbes: probes, ...seams }, checks });
  const stdout = capture(columns);
  const stderr = capture(columns);
  const io: Io = {
    env: { NO_COLOR: "1", ...env },
    cwd: "/nonexistent-certsched-test-dir",
    stdout,
    stderr,
    untilInterrupted: () => new Promise(() => {}),
  };
  let code: number;
  try {
    const args = parseCommandArgs(
      "preflight",
      argv,
      { ...command.options, ...COMMON_OPTIONS },
      command.maxPositionals,
    );
    code = await command.run(args, io);
  } catch (error) {
    code = reportFailure(error, io, { json: argv.includes("--json"), command: "preflight" });
  }
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** An inventory of its own on Azurite, holding `rows` (App Service over http unless said). */
async function inventoryWith(
  rows: readonly (Partial<InventoryUpdate> & { certificateName: string })[],
): Promise<Inventory> {
  const inventory = tableInventory({
    connectionString: connectionString(),
    tableName: uniqueTableName("pf"),
  });
  await inventory.upsert(
    rows.map((r) => ({
      target: "Cloud App Service",
      challengeType: "http",
      serviceExpiry: new Date(Date.now() + 40 * DAY_MS),
      source: "due-list" as const,
      seenAt: new Date(),
      ...r,
    })),
  );
  return inventory;
}

/** An inventory whose table cannot be reached: a port nothing listens on. */
function unreachableInventory(): Inventory {
  return tableInventory({
    connectionString: connectionString().replaceAll(/127\.0\.0\.1:\d+/g, "127.0.0.1:9"),
    tableName: uniqueTableName("pf"),
    timeoutMs: 300,
  });
}

interface Document {
  results: {
    account: string;
    certificateName: string;
    rootDomain: string | null;
    status: string;
    checks: { check: string; status: string; reason: string | null; detail: string }[];
  }[];
  counts: Record<string, number>;
  accounts?: { name: string; failed: boolean; problems: string[] }[];
}

const three = () =>
  inventoryWith([
    { certificateName: "blocked", rootDomain: `${CAA_FORBIDS}.contoso.com` },
    { certificateName: "fine", rootDomain: "www.contoso.com" },
    { certificateName: "silent", rootDomain: `${SLOW}.contoso.com` },
  ]);

describe("certsched preflight --json", () => {
  it("one document of the contract's keys; a will-fail certificate exits 1 and is stored", async () => {
    sim = await startSimulator();
    const inventory = await three();

    const ran = await preflight(["--json"], sandboxSettings(sim), { inventory });

    expect(ran.code).toBe(1);
    const doc = JSON.parse(ran.stdout) as Document;
    expect(Object.keys(doc)).toEqual(["results", "counts"]);
    expect(doc.counts).toEqual({ ready: 1, "will-fail": 1, unknown: 1 });
    expect(doc.results.map((r) => [r.certificateName, r.status])).toEqual([
      ["blocked", "will-fail"],
      ["fine", "ready"],
      ["silent", "unknown"],
    ]);
    const [blocked] = doc.results;
    expect(Object.keys(blocked ?? {})).toEqual([
      "account",
      "certificateName",
      "rootDomain",
      "status",
      "checks",
    ]);
    expect(blocked).toMatchObject({ account: "default", rootDomain: "forbidden.contoso.com" });
    // Every check has the four keys; reason is null unless the check failed.
    expect(blocked?.checks).toEqual([
      {
        check: "caa",
        status: "fail",
        reason: "caa-forbids",
        detail:
          'CAA at forbidden.contoso.com: 0 issue "digicert.com" (letsencrypt.org not allowed)',
      },
      { check: "app-binding", status: "pass", reason: null, detail: "ok" },
      { check: "http-challenge", status: "pass", reason: null, detail: "ok" },
      { check: "access", status: "pass", reason: null, detail: "ok" },
    ]);
    expect(doc.results[2]?.checks[0]).toEqual({
      check: "caa",
      status: "unknown",
      reason: null,
      detail: "no DNS answer within 5s",
    });
    // Kept with the certificate: the sweep and status read it.
    expect((await inventory.get("blocked"))?.lastPreflight?.status).toBe("will-fail");
    expect((await inventory.get("silent"))?.lastPreflight?.status).toBe("unknown");
    // Nothing was asked of the service: with storage, the inventory is what is checked.
    expect(sim.requestsFor("list")).toHaveLength(0);
  });

  it("exits 0 when every certificate is ready or unknown", async () => {
    sim = await startSimulator();
    const inventory = await inventoryWith([
      { certificateName: "fine", rootDomain: "www.contoso.com" },
      { certificateName: "silent", rootDomain: `${SLOW}.contoso.com` },
    ]);

    const ran = await preflight(["--json"], sandboxSettings(sim), { inventory });

    expect(ran.code).toBe(0);
    expect((JSON.parse(ran.stdout) as Document).counts).toEqual({
      ready: 1,
      "will-fail": 0,
      unknown: 1,
    });
  });

  it("without storage checks the due list, says so on stderr, and shows no secret", async () => {
    sim = await startSimulator({
      certificates: [
        {
          certificateName: "due-kv",
          rootDomain: "Forbidden.Contoso.com.",
          target: "Cloud Key Vault + DNS",
          keyVaultName: "kv",
          dnsZoneResourceGroup: "rg-dns",
          cloudSubscriptionId: "00000000-0000-4000-8000-000000000001",
          expiryDate: new Date(Date.now() + 10 * DAY_MS),
        },
      ],
    });

    const ran = await preflight(["--json"], sandboxSettings(sim), {});

    expect(ran.code).toBe(1);
    const doc = JSON.parse(ran.stdout) as Document;
    expect(doc.results[0]).toMatchObject({
      certificateName: "due-kv",
      rootDomain: "forbidden.contoso.com",
      status: "will-fail",
    });
    expect(doc.results[0]?.checks.map((c) => c.check)).toEqual([
      "caa",
      "dns-zone",
      "dns-delegation",
      "access",
    ]);
    expect(ran.stderr).toContain("no storage configured: checked the certificates on the");
    expect(sim.requestsFor("list")).toHaveLength(1);
    expect(sim.issuedTokens().length).toBeGreaterThan(0);
    for (const secret of secretsOf(sim)) expect(ran.stdout + ran.stderr).not.toContain(secret);
  });
});

describe("certsched preflight, the table", () => {
  it("each certificate's status, each failed or unknown check under it with what to do, the counts", async () => {
    sim = await startSimulator();
    const inventory = await three();

    const ran = await preflight([], sandboxSettings(sim), { inventory });

    expect(ran.code).toBe(1);
    const lines = ran.stdout.split("\n");
    expect(lines[0]).toMatch(/^CERTIFICATE\s+DOMAIN\s+STATUS$/);
    expect(lines.slice(1, 9)).toEqual([
      expect.stringMatching(/^blocked\s+forbidden\.contoso\.com\s+will-fail$/),
      '  caa: fail (caa-forbids) — CAA at forbidden.contoso.com: 0 issue "digicert.com" (letsencrypt.org not allowed)',
      `    what to do: ${PREFLIGHT_ADVICE["caa-forbids"]}`,
      expect.stringMatching(/^fine\s+www\.contoso\.com\s+ready$/),
      expect.stringMatching(/^silent\s+slow\.contoso\.com\s+unknown$/),
      "  caa: unknown — no DNS answer within 5s",
      "",
      "3 checked: 1 ready, 1 will-fail, 1 unknown.",
    ]);
  });

  it("fits a narrow terminal whatever the names and details hold, one line each, nothing raw", async () => {
    sim = await startSimulator();
    const long = `cert-${"n".repeat(300)}`;
    const inventory = await inventoryWith([
      { certificateName: long, rootDomain: `${CAA_FORBIDS}.${"d".repeat(60)}.contoso.com` },
      { certificateName: "evil\u001b]0;title\u0007\nname", rootDomain: `${SLOW}.contoso.com` },
    ]);

    const ran = await preflight([], sandboxSettings(sim), { inventory }, 60);

    expect(ran.code).toBe(1);
    const lines = ran.stdout.trimEnd().split("\n");
    for (const line of lines) {
      expect(visibleWidth(line), line).toBeLessThanOrEqual(60);
      expect(line).not.toMatch(CONTROL_BUT_NEWLINE);
    }
    // The escaped name is one row, not two; the advice is wrapped, not cut.
    expect(lines.filter((l) => l.startsWith("evil"))).toHaveLength(1);
    expect(lines.join(" ").replace(/\s+/g, " ")).toContain(
      PREFLIGHT_ADVICE["caa-forbids"].replace(/\s+/g, " "),
    );
    expect(lines.at(-1)).toBe("2 checked: 0 ready, 1 will-fail, 1 unknown.");
  });

  it("says there is nothing to check, exit 0, when the inventory is empty", async () => {
    sim = await startSimulator();
    const inventory = await inventoryWith([]);

    const ran = await preflight([], sandboxSettings(sim), { inventory });

    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe(
      "Nothing to check: the inventory holds no certificate of the service yet (a sweep or certsched verify fills it).\n",
    );
  });
});

describe("certsched preflight --certificate", () => {
  it("checks only the named ones (repeatable, a name given twice once)", async () => {
    sim = await startSimulator();
    const inventory = await three();

    const ran = await preflight(
      ["--json", "--certificate", "fine", "--certificate", "silent", "--certificate", "fine"],
      sandboxSettings(sim),
      { inventory },
    );

    expect(ran.code).toBe(0);
    const doc = JSON.parse(ran.stdout) as Document;
    expect(doc.results.map((r) => r.certificateName)).toEqual(["fine", "silent"]);
    expect(await inventory.get("blocked").then((r) => r?.lastPreflight)).toBeUndefined();
  });

  it("a name the inventory does not hold is a usage error (exit 2) naming it, and nothing is checked", async () => {
    sim = await startSimulator();
    const inventory = await three();

    const ran = await preflight(
      ["--json", "--certificate", "fine", "--certificate", "fien"],
      sandboxSettings(sim),
      { inventory },
    );

    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("--certificate 'fien': not found in the inventory");
    expect(ran.stderr).not.toContain("'fine'");
    expect(JSON.parse(ran.stdout)).toEqual({
      error: {
        code: "USAGE",
        message:
          "--certificate 'fien': not found in the inventory (or, without storage, on the due list); nothing was checked",
      },
    });
    expect(await inventory.get("fine").then((r) => r?.lastPreflight)).toBeUndefined();
  });

  it("a name on no account's list is an error; one held by any account is not", async () => {
    accounts = await startSimAccounts(["east", "west"]);
    const east = await inventoryWith([
      { certificateName: "only-east", rootDomain: "e.contoso.com" },
    ]);
    const west = await inventoryWith([
      { certificateName: "only-west", rootDomain: "w.contoso.com" },
    ]);
    const seams = { inventory: (a: string) => (a === "east" ? east : west) };

    const held = await preflight(["--json", "--certificate", "only-west"], accounts.env(), seams);
    const typo = await preflight(["--certificate", "only-north"], accounts.env(), seams);

    expect(held.code).toBe(0);
    expect((JSON.parse(held.stdout) as Document).results.map((r) => r.account)).toEqual(["west"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "--certificate 'only-north': not found in any account's inventory",
    );
  });
});

describe("certsched preflight over several accounts", () => {
  it("an ACCOUNT column; --account picks one; an account that fails is named, the others still checked", async () => {
    accounts = await startSimAccounts(["east", "west", "down"]);
    const east = await inventoryWith([
      { certificateName: "e1", rootDomain: `${CAA_FORBIDS}.contoso.com` },
    ]);
    const west = await inventoryWith([{ certificateName: "w1", rootDomain: "w.contoso.com" }]);
    const down = unreachableInventory();
    const seams = {
      inventory: (a: string) => (a === "east" ? east : a === "west" ? west : down),
    };

    const all = await preflight([], accounts.env(), seams);
    const json = await preflight(["--json"], accounts.env(), seams);
    const one = await preflight(["--json", "--account", "west"], accounts.env(), seams);
    const unknownAccount = await preflight(["--account", "north"], accounts.env(), seams);

    expect(all.code).toBe(1);
    const lines = all.stdout.split("\n");
    expect(lines[0]).toMatch(/^ACCOUNT\s+CERTIFICATE\s+DOMAIN\s+STATUS$/);
    expect(lines[1]).toMatch(/^east\s+e1\s+forbidden\.contoso\.com\s+will-fail$/);
    expect(lines).toContainEqual(expect.stringMatching(/^west\s+w1\s+w\.contoso\.com\s+ready$/));
    expect(all.stderr).toMatch(/certsched: error: account down: inventory: cannot read table/);
    const doc = JSON.parse(json.stdout) as Document;
    expect(doc.accounts?.map((a) => [a.name, a.failed])).toEqual([
      ["east", false],
      ["west", false],
      ["down", true],
    ]);
    expect(doc.counts).toEqual({ ready: 1, "will-fail": 1, unknown: 0 });
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({
      results: [{ account: "west", certificateName: "w1", status: "ready" }],
    });
    expect(Object.keys(JSON.parse(one.stdout) as object)).toEqual(["results", "counts"]);
    expect(unknownAccount.code).toBe(2);
    expect(unknownAccount.stderr).toContain("--account 'north' is unknown");
    for (const ran of [all, json, one, unknownAccount]) {
      for (const secret of accounts.secrets()) {
        expect(ran.stdout + ran.stderr).not.toContain(secret);
      }
    }
  });

  it("a --certificate not found while an account could not be read: said, the run goes on, exit 1", async () => {
    accounts = await startSimAccounts(["east", "down"]);
    const east = await inventoryWith([{ certificateName: "e1", rootDomain: "e.contoso.com" }]);
    const down = unreachableInventory();
    const seams = { inventory: (a: string) => (a === "east" ? east : down) };

    const ran = await preflight(
      ["--json", "--certificate", "e1", "--certificate", "maybe-down"],
      accounts.env(),
      seams,
    );

    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      "certsched: --certificate 'maybe-down': not found in any account's inventory (or, without storage, on its due list); some certificates could not be read, see below.",
    );
    expect(ran.stderr).toMatch(/certsched: error: account down: inventory: cannot read table/);
    const doc = JSON.parse(ran.stdout) as Document;
    expect(doc.results.map((r) => [r.account, r.certificateName, r.status])).toEqual([
      ["east", "e1", "ready"],
    ]);
    expect(doc.accounts?.find((a) => a.name === "down")?.failed).toBe(true);
  });

  it("one account whose inventory cannot be read: exit 1 with the cause, as every command", async () => {
    sim = await startSimulator();

    const ran = await preflight(["--json"], sandboxSettings(sim), {
      inventory: unreachableInventory(),
    });

    expect(ran.code).toBe(1);
    expect(JSON.parse(ran.stdout)).toMatchObject({ error: { code: "INVENTORY_UNAVAILABLE" } });
  });
});

describe("certsched preflight, the details it prints", () => {
  it("prints a detail of MAX_CHECK_DETAIL characters whole, on one line under its certificate", async () => {
    sim = await startSimulator();
    const inventory = await inventoryWith([
      { certificateName: "long", rootDomain: `${SLOW}.contoso.com` },
    ]);
    const detail = `d${"x".repeat(MAX_CHECK_DETAIL - 1)}`;
    const command = preflightCommandWith({
      seams: { preflightProbes: probes, inventory },
      checks: {
        ...checks,
        caa: async () => ({ check: { check: "caa", status: "unknown", detail } }),
      },
    });
    const stdout = capture();
    const io: Io = {
      env: { ...sandboxSettings(sim), NO_COLOR: "1" },
      cwd: "/nonexistent-certsched-test-dir",
      stdout,
      stderr: capture(),
      untilInterrupted: () => new Promise(() => {}),
    };

    const code = await command.run({ values: {}, positionals: [] }, io);

    expect(code).toBe(0);
    expect(stdout.text.split("\n")).toContain(`  caa: unknown — ${detail}`);
  });
});
