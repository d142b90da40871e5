import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { palette } from "../../../cli/output/color.js";
import {
  renderSandboxVerification,
  type Sandbox,
  sandboxServices,
  startSandbox,
  verifySandbox,
} from "../../../cli/sandbox.js";
import { sweep } from "../../../shared/usecases/sweep/sweep.js";
import {
  SAMPLE_REFUSAL,
  type Simulator,
  sandboxSettings,
  startSimulator,
} from "../../../sim/index.js";
import { SAMPLE_SHARED_NAME, sandboxAccounts } from "../../../sim/sandbox.js";
import { startSimAccounts } from "../../support/accounts.js";
import {
  expectNoSandboxSecret,
  expectNoSecret,
  inDays,
  jsonOf,
  tempDir,
} from "../../support/cli.js";
import { CLI, ensureBuilt, ROOT, runCli, runNode, START } from "../../support/cliBuild.js";

interface VerifyDocument {
  results: { domain: string; source: string; status: string; daysLeft?: number; issuer?: string }[];
}

let sim: Simulator | undefined;
const dirs: (() => Promise<void>)[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const remove of dirs.splice(0)) await remove();
});

/** A working directory without local.settings.json: only the environment configures the run. */
async function emptyDir(): Promise<string> {
  const dir = await tempDir();
  dirs.push(dir.remove);
  return dir.path;
}

/** The App Service sample domains whose renewal lands (or that were not due): ok, by account. */
const SANDBOX_OK_DOMAINS = {
  contoso: ["www.contoso.com", "staging.contoso.com", "blog.contoso.com", "static.contoso.com"],
  fabrikam: ["legacy.fabrikam.com", "partners.fabrikam.com"],
};

/** The Key Vault sample certificates in each account's vault whose version is current: ok. */
const SANDBOX_OK_VAULT = {
  contoso: ["kv-contoso/api-contoso-com", "kv-contoso/wildcard"],
  fabrikam: [
    "kv-fabrikam/vault-fabrikam-com",
    "kv-fabrikam/mail-fabrikam-com",
    "kv-fabrikam/docs-fabrikam-com",
    "kv-fabrikam/wildcard",
  ],
};

/** The domain as a regular expression (the table is not cut: stdout is not a terminal). */
const rowOf = (domain: string) => domain.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The certificates each sandbox account lists as due. */
const SANDBOX_DUE = {
  contoso: [
    "www-contoso-com",
    "shop-contoso-com",
    "api-contoso-com",
    "intranet-contoso-com",
    "staging-contoso-com",
    SAMPLE_SHARED_NAME,
  ],
  fabrikam: ["legacy-fabrikam-com", "vault-fabrikam-com", SAMPLE_SHARED_NAME],
};

/** Every sandbox account's throwaway API key and client secret: none is ever printed. */
function expectNoSandboxAccountSecret(result: { stdout: string; stderr: string }): void {
  const output = result.stdout + result.stderr;
  const specs = sandboxAccounts(new Date());
  expect(specs).toHaveLength(2);
  for (const spec of specs) {
    for (const secret of [spec.options.apiKey, spec.options.clientSecret]) {
      expect(secret).toBeTruthy();
      expect(output).not.toContain(secret);
    }
  }
}

/** The text between the heading of account `name` and the next account's (or the end). */
function partOf(out: string, name: string): string {
  const start = out.search(
    new RegExp(
      `^Account ${name} \\(http://127\\.0\\.0\\.1:\\d+, subscription sub-${name}\\)$`,
      "m",
    ),
  );
  expect(start, `the part of account ${name}`).toBeGreaterThanOrEqual(0);
  const rest = out.slice(start + 1);
  const next = rest.search(/^(Account \S+ \(|\d+ accounts:$)/m);
  return next < 0 ? rest : rest.slice(0, next);
}

describe("npm start (scripts/start.mjs)", () => {
  it("without CERTSCHED_BASE_URL sweeps the sandbox's two accounts under a banner and exits 0", async () => {
    const result = await runNode(START, [], { cwd: ROOT });

    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain("=== certsched SANDBOX ===");
    expect(out).toContain("This is the sandbox");
    expect(out.replaceAll("\n", " ")).toMatch(
      /2 accounts declared in CERTSCHED_ACCOUNTS: contoso at http:\/\/127\.0\.0\.1:\d+ \(9 certificates\) and fabrikam at http:\/\/127\.0\.0\.1:\d+ \(6 certificates\)/,
    );
    expect(out).toContain("To use the real service, set CERTSCHED_BASE_URL");
    // Each account's part under its own heading, contoso first: its sweep, then its verification.
    const contoso = partOf(out, "contoso");
    const fabrikam = partOf(out, "fabrikam");
    expect(out.indexOf("Account contoso")).toBeLessThan(out.indexOf("Account fabrikam"));
    for (const part of [contoso, fabrikam]) {
      expect(part).toMatch(/^CERTIFICATE\s+TARGET\s+EXPIRES \(UTC\)\s+OUTCOME$/m);
      expect(part).toContain("Verification, as certsched verify sees it 2 h after the sweep");
      expect(part).toMatch(/^DOMAIN\s+STATUS\s+EXPIRES \(UTC\)\s+ISSUER$/m);
    }
    for (const [part, names] of [
      [contoso, SANDBOX_DUE.contoso],
      [fabrikam, SANDBOX_DUE.fabrikam],
    ] as const) {
      const swept = part.slice(0, part.indexOf("Verification"));
      const rows = [
        ...swept.matchAll(
          /^(\S+)\s+Cloud .*?\s(renewal-scheduled( \(outside window\))?|failed|waiting \(opens [^)]+\))$/gm,
        ),
      ];
      expect(rows.map((m) => m[1]).sort()).toEqual([...names].sort());
    }
    // The shared name renewed in each account, each in its own table.
    const shared = new RegExp(
      `^${SAMPLE_SHARED_NAME}\\s+Cloud Key Vault \\+ DNS\\s.*renewal-scheduled$`,
      "m",
    );
    expect(contoso).toMatch(shared);
    expect(fabrikam).toMatch(shared);
    // Both targets, the staged refusal (contoso's), and each account's summary.
    expect(contoso).toMatch(/Cloud App Service/);
    expect(contoso).toMatch(/Cloud Key Vault \+ DNS/);
    expect(contoso).toMatch(/^intranet-contoso-com\s.*\sfailed$/m);
    expect(contoso).toContain(SAMPLE_REFUSAL);
    expect(contoso).toContain("6 due: 4 renewal-scheduled, 1 failed, 1 waiting for their window.");
    // The renewal calendar contoso declares (cli/sandboxWindows.ts): one certificate waits for
    // its window, one is renewed outside it because its expiry comes first; both explained.
    expect(contoso).toMatch(
      /^api-contoso-com\s.*\swaiting \(opens \d{4}-\d\d-\d\d 09:00 Europe\/Berlin\)$/m,
    );
    expect(contoso).toMatch(/^www-contoso-com\s.*\srenewal-scheduled \(outside window\)$/m);
    expect(contoso).toMatch(
      /^ {2}renewed outside its renewal windows: it must be renewed by \S+ \S+ UTC \(its expiry less the margin\)/m,
    );
    expect(contoso.replaceAll("\n", " ")).toMatch(
      /Expected in the sandbox: contoso declares a renewal window .* api-contoso-com is due but waits for its window, which opens \d{4}-\d\d-\d\d 09:00 Europe\/Berlin \(\d{4}-\d\d-\d\d 0[78]:00 UTC\): it has time, so nothing is sent now; and www-contoso-com is renewed now, outside its window, because it expires before that window opens plus the 3-day margin/,
    );
    expect(fabrikam).not.toContain("window");
    expect(contoso).toContain("Expected in the sandbox");
    expect(contoso).toContain("so the exit code is 0");
    expect(fabrikam).toContain("3 due: 3 renewal-scheduled.");
    expect(fabrikam).not.toContain("failed");
    expect(fabrikam).not.toContain("Expected in the sandbox");
    expect(out).not.toMatch(/^(blog|partners|static|mail|docs)-\S+\s+Cloud/m);
    // Then the verification of what each App Service domain serves, one not-landed on purpose.
    for (const [part, domains] of [
      [contoso, SANDBOX_OK_DOMAINS.contoso],
      [fabrikam, SANDBOX_OK_DOMAINS.fabrikam],
    ] as const) {
      for (const domain of domains) {
        expect(part).toMatch(new RegExp(`^${rowOf(domain)}\\s+ok\\s.*certsched simulator$`, "m"));
      }
    }
    expect(contoso).toMatch(
      /^shop\.contoso\.com\s+not-landed\s+\S+ \(11 days left\)\s+certsched simulator$/m,
    );
    // The Key Vault certificates, each read from its account's own vault.
    for (const [part, rows] of [
      [contoso, SANDBOX_OK_VAULT.contoso],
      [fabrikam, SANDBOX_OK_VAULT.fabrikam],
    ] as const) {
      for (const row of rows) expect(part).toMatch(new RegExp(`^${rowOf(row)}\\s+ok\\s`, "m"));
    }
    // The one whose renewal is refused on purpose: nothing renewed it, so it is expiring.
    expect(contoso).toMatch(
      new RegExp(`^${rowOf("kv-contoso/intranet-contoso-com")}\\s+expiring\\s`, "m"),
    );
    expect(contoso.replaceAll("\n", " ")).toContain(
      "intranet-contoso-com is expiring because the simulator refuses its renewal on purpose (the staged failure above)",
    );
    expect(contoso).toMatch(
      /^shop\.contoso\.com not-landed:\n {2}renewal accepted at \S+Z, more than 2 h ago \(CERTSCHED_VERIFY_WINDOW\), but the certificate served still expires at \S+Z, no later than before the renewal \(\S+Z\)\n {2}The service renewed, but the endpoint still serves the old certificate/m,
    );
    expect(contoso).toContain("13 checked: 1 not-landed, 1 not-synced, 2 expiring, 9 ok.");
    expect(fabrikam).toContain("10 checked: 10 ok.");
    // The staged not-synced (sim/sandboxSync.ts): the domain of a vault certificate renewed 30
    // hours ago still serves the previous version; explained like the other staged events.
    expect(contoso).toMatch(
      /^cdn\.contoso\.com\s+not-synced\s+\S+ \(\d+ days left\)\s+certsched simulator$/m,
    );
    expect(contoso).toMatch(
      /^cdn\.contoso\.com not-synced:\n {2}serves [0-9A-F]{16}… \(issued \S+Z\) but vault kv-contoso\/cdn-contoso-com holds version [0-9a-f]{16}… \([0-9A-F]{16}…\) since \S+Z \(more than 24 h, CERTSCHED_SYNC_WINDOW\): re-sync the App Service certificate from Key Vault/m,
    );
    expect(contoso.replaceAll("\n", " ")).toContain(
      "Expected in the sandbox: the service renewed cdn-contoso-com 30 hours ago and its vault holds the new version since, but cdn.contoso.com still serves the previous one: the simulator's consumer of the vault lags 3 days on purpose",
    );
    expect(fabrikam).not.toContain("not-synced");
    expect(contoso.replaceAll("\n", " ")).toContain(
      'Expected in the sandbox: the service renewed shop-contoso-com, but the simulator\'s hosting endpoint keeps serving the old certificate on purpose, to show what "renewed, but the site still serves the old certificate" looks like. Against a real service not-landed makes certsched verify exit with code 1; here it is part of the demo, so the exit code is 0.',
    );
    // Certificate Transparency after contoso's verification: the served certificate's
    // precertificate expected by its TBS hash, the stray one unexpected and explained.
    const ct = contoso.slice(contoso.indexOf("Certificate Transparency (a simulated Cert Spotter"));
    expect(ct.replaceAll("\n", " ")).toMatch(
      /expected www\.contoso\.com by certsched simulator: same TBS hash as the served certificate "www-contoso-com"/,
    );
    expect(ct.replaceAll("\n", " ")).toMatch(
      /UNEXPECTED pay\.contoso\.com by Unknown CA: no certificate certsched has read has its public key, and certsched sent no request for these names/,
    );
    expect(ct.match(/UNEXPECTED/g)).toHaveLength(1);
    expect(ct.replaceAll("\n", " ")).toContain(
      'Expected in the sandbox: the certificate for pay.contoso.com from "Unknown CA" is staged: nobody here asked for it.',
    );
    expect(ct).toContain("so the exit code stays 0");
    expect(fabrikam).not.toContain("Certificate Transparency");
    // One line per account at the end.
    expect(out).toMatch(
      /^2 accounts:\n {2}contoso: 6 due: 4 renewal-scheduled, 1 failed, 1 waiting \(as staged\)\n {2}fabrikam: 3 due: 3 renewal-scheduled \(ok\)$/m,
    );
    // Preflight comes first, in the order things happened: it ran before each account's sweep.
    // Every due certificate of both accounts, two will-fail on purpose, each with its reason and
    // what to do, explained like the other staged events.
    const title = "Preflight, run before each account's sweep below";
    expect(out.indexOf(title)).toBeGreaterThan(out.indexOf("=== certsched SANDBOX ==="));
    expect(out.indexOf(title)).toBeLessThan(
      out.search(/^CERTIFICATE\s+TARGET\s+EXPIRES \(UTC\)\s+OUTCOME$/m),
    );
    expect(out.indexOf(title)).toBeLessThan(out.indexOf("Account contoso"));
    expect(out).not.toContain("run just before each sweep");
    const preflight = out.slice(out.indexOf(title), out.indexOf("Account contoso"));
    expect(preflight).toMatch(/^ACCOUNT\s+CERTIFICATE\s+DOMAIN\s+STATUS$/m);
    expect(preflight).toMatch(
      /^contoso\s+staging-contoso-com\s+staging\.contoso\.com\s+will-fail$/m,
    );
    expect(preflight).toMatch(
      /^ {2}caa: fail \(caa-forbids\) — CAA at staging\.contoso\.com allows only digicert\.com/m,
    );
    expect(preflight).toMatch(
      /^contoso\s+intranet-contoso-com\s+intranet\.contoso\.com\s+will-fail$/m,
    );
    expect(preflight).toMatch(/^ {2}dns-zone: fail \(dns-zone-missing\) — no DNS zone named/m);
    expect(preflight).toMatch(/^ {4}what to do: create the DNS zone/m);
    expect(preflight).toMatch(/^fabrikam\s+legacy-fabrikam-com\s+legacy\.fabrikam\.com\s+ready$/m);
    expect(preflight).toContain("9 checked: 7 ready, 2 will-fail, 0 unknown.");
    expect(preflight.replaceAll("\n", " ")).toMatch(
      /Expected in the sandbox: preflight finds on purpose that intranet-contoso-com .*dns-zone-missing.* and staging-contoso-com .*caa-forbids.* will fail/,
    );
    // Why the sweeps below send them anyway, and what became of each there.
    expect(preflight.replaceAll("\n", " ")).toContain(
      "The sandbox keeps no storage, where a sweep reads the last preflight, so its sweeps below do not hold these renewals back: intranet-contoso-com is sent and fails (the simulator refuses it), and staging-contoso-com is sent and scheduled (the simulator does not check CAA).",
    );
    expect(contoso).toMatch(/^staging-contoso-com\s.*\srenewal-scheduled$/m);
    // No account's credentials or tokens are printed by a sweep.
    expectNoSandboxSecret(result);
    expectNoSandboxAccountSecret(result);
    // Nothing ordinary was blanked out as if it were one (a secret that is a word would be).
    expect(out + result.stderr).not.toContain("[REDACTED]");
  });

  it("passes extra arguments to the sweep: --json gives one document, every result naming its account", async () => {
    const result = await runNode(START, ["--json"], { cwd: ROOT });

    expect(result.code).toBe(0);
    const doc = jsonOf<{
      sandbox: boolean;
      failed: boolean;
      passes: boolean;
      stagedFailures: string[];
      counts: Record<string, number>;
      accounts: {
        name: string;
        failed: boolean;
        problems: string[];
        stagedFailures: string[];
        counts: Record<string, number>;
        ledger: string;
        startedAt: string;
      }[];
      results: { account: string; certificateName: string; target: string; outcome: string }[];
      sandboxVerification: {
        counts: Record<string, number>;
        staged: string[];
        passes: boolean;
        results: {
          account: string;
          domain: string;
          certificateName?: string;
          source: string;
          status: string;
        }[];
      };
    }>(result);
    expect(doc.sandbox).toBe(true);
    expect(doc).toMatchObject({ failed: true, passes: true });
    expect(doc.stagedFailures).toEqual(["intranet-contoso-com"]);
    const preflight = (
      doc as unknown as {
        preflight: {
          counts: Record<string, number>;
          staged: string[];
          results: { account: string }[];
        };
      }
    ).preflight;
    expect(preflight.counts).toEqual({ ready: 7, "will-fail": 2, unknown: 0 });
    expect(preflight.staged.sort()).toEqual(["intranet-contoso-com", "staging-contoso-com"]);
    expect(preflight.results.filter((r) => r.account === "fabrikam")).toHaveLength(3);
    expect(doc.counts).toMatchObject({ due: 9, "renewal-scheduled": 7, failed: 1, waiting: 1 });
    expect(doc.accounts.map((a) => [a.name, a.failed, a.problems, a.stagedFailures])).toEqual([
      ["contoso", true, ["1 renewal(s) failed: intranet-contoso-com"], ["intranet-contoso-com"]],
      ["fabrikam", false, [], []],
    ]);
    expect(doc.accounts[0]?.counts).toMatchObject({
      due: 6,
      "renewal-scheduled": 4,
      failed: 1,
      waiting: 1,
    });
    // The calendar's two results, each with its window note.
    const windowed = (doc.results as ((typeof doc.results)[number] & { window?: unknown })[])
      .filter((r) => r.window !== undefined)
      .map((r) => [r.account, r.certificateName, r.outcome, r.window]);
    expect(windowed).toEqual([
      [
        "contoso",
        "www-contoso-com",
        "renewal-scheduled",
        expect.objectContaining({ state: "outside", because: "expiry" }),
      ],
      [
        "contoso",
        "api-contoso-com",
        "waiting",
        expect.objectContaining({
          state: "waiting",
          opensAtLocal: expect.stringMatching(/ 09:00 Europe\/Berlin$/),
        }),
      ],
    ]);
    // Each account's sweep ran with its own in-memory ledger.
    for (const account of doc.accounts) {
      expect(account).toMatchObject({ ledger: "memory", startedAt: expect.any(String) });
    }
    expect(doc.accounts[1]?.counts).toMatchObject({ due: 3, "renewal-scheduled": 3, failed: 0 });
    for (const account of ["contoso", "fabrikam"] as const) {
      expect(
        doc.results
          .filter((r) => r.account === account)
          .map((r) => r.certificateName)
          .sort(),
      ).toEqual([...SANDBOX_DUE[account]].sort());
    }
    expect(doc.results.filter((r) => r.certificateName === SAMPLE_SHARED_NAME)).toEqual([
      expect.objectContaining({ account: "contoso", outcome: "renewal-scheduled" }),
      expect.objectContaining({ account: "fabrikam", outcome: "renewal-scheduled" }),
    ]);
    expect(new Set(doc.results.map((r) => r.target))).toEqual(
      new Set(["Cloud App Service", "Cloud Key Vault + DNS"]),
    );
    // Every Key Vault certificate's domain too: intranet's is expiring as its vault
    // is, cdn.contoso.com is the staged not-synced.
    expect(doc.sandboxVerification.counts).toEqual({
      "not-landed": 1,
      "not-synced": 1,
      expiring: 2,
      ok: 19,
    });
    expect(doc.sandboxVerification.staged).toEqual(["shop-contoso-com"]);
    const cdn = doc.sandboxVerification.results.find((r) => r.domain === "cdn.contoso.com");
    expect(cdn).toMatchObject({
      account: "contoso",
      certificateName: "cdn-contoso-com",
      source: "tls",
      status: "not-synced",
    });
    expect(doc.sandboxVerification.passes).toBe(true);
    const shop = doc.sandboxVerification.results.find(
      (r) => r.certificateName === "shop-contoso-com",
    );
    expect(shop).toMatchObject({
      account: "contoso",
      domain: "shop.contoso.com",
      source: "tls",
      status: "not-landed",
    });
    const vault = doc.sandboxVerification.results.filter((r) => r.source === "keyvault");
    expect(vault.map((r) => [r.account, r.domain, r.status])).toEqual([
      ["contoso", "kv-contoso/api-contoso-com", "ok"],
      ["contoso", "kv-contoso/intranet-contoso-com", "expiring"],
      ["contoso", "kv-contoso/cdn-contoso-com", "ok"],
      ["contoso", "kv-contoso/wildcard", "ok"],
      ["fabrikam", "kv-fabrikam/vault-fabrikam-com", "ok"],
      ["fabrikam", "kv-fabrikam/mail-fabrikam-com", "ok"],
      ["fabrikam", "kv-fabrikam/docs-fabrikam-com", "ok"],
      ["fabrikam", "kv-fabrikam/wildcard", "ok"],
    ]);
    // The banner still says where this came from, on stderr.
    expect(result.stderr).toContain("=== certsched SANDBOX ===");
    expectNoSandboxSecret(result);
    expectNoSandboxAccountSecret(result);
  });

  it("--dry-run renews nothing, so there is no verification to show", async () => {
    const result = await runNode(START, ["--dry-run"], { cwd: ROOT });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain("6 due: 5 would-renew, 1 waiting for their window.");
    expect(result.stdout).toContain("3 due: 3 would-renew.");
    expect(result.stdout).toMatch(/^ {2}contoso: 6 due: 5 would-renew, 1 waiting \(ok\)$/m);
    expect(result.stdout).toMatch(/^ {2}fabrikam: 3 due: 3 would-renew \(ok\)$/m);
    expect(result.stdout.replaceAll("\n", " ")).toContain(
      "do not hold these renewals back: intranet-contoso-com would be sent (a dry run sends nothing), and staging-contoso-com would be sent (a dry run sends nothing).",
    );
    expect(result.stdout).not.toContain("Verification");
    expect(result.stdout).not.toContain("not-landed");
  });

  it("with CERTSCHED_BASE_URL set sweeps that service instead: exit 1 when a renewal fails", async () => {
    sim = await startSimulator({
      certificates: [
        { certificateName: "real-one", expiryDate: inDays(3) },
        { certificateName: "real-refused", expiryDate: inDays(4), refuseRenewal: "quota exceeded" },
      ],
    });

    const result = await runNode(START, [], { env: sandboxSettings(sim), cwd: await emptyDir() });

    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain("SANDBOX");
    expect(result.stdout).toMatch(/^real-one\s.*renewal-scheduled/m);
    expect(result.stdout).toMatch(/^real-refused\s.*failed$/m);
    // The cause in full on its own line below the table, without the redundant prefix.
    expect(result.stdout).toMatch(/^real-refused failed:\n {2}400: quota exceeded$/m);
    expect(sim.renewCallsFor("real-one")).toBe(1);
    expectNoSecret(result, sim);
  });

  it("with CERTSCHED_ACCOUNTS (or CERTSCHED_ACCOUNTS_FILE) set sweeps those accounts, not the sandbox, and never prints their JSON", async () => {
    const accounts = await startSimAccounts(["north", "south"], () => ({
      certificates: [{ certificateName: "shared-name", expiryDate: inDays(3) }],
    }));
    try {
      const inline = await runNode(START, [], { env: accounts.env(), cwd: await emptyDir() });
      const dir = await emptyDir();
      await writeFile(join(dir, "accounts.json"), accounts.env().CERTSCHED_ACCOUNTS ?? "");
      await writeFile(
        join(dir, "local.settings.json"),
        JSON.stringify({ Values: { CERTSCHED_ACCOUNTS_FILE: "accounts.json" } }),
      );
      const fromFile = await runNode(START, [], { cwd: dir });

      expect(inline.stderr).toContain(
        "certsched: sweeping the accounts CERTSCHED_ACCOUNTS declares",
      );
      expect(fromFile.stderr).toContain(
        "certsched: sweeping the accounts declared in accounts.json (CERTSCHED_ACCOUNTS_FILE is set)",
      );
      for (const result of [inline, fromFile]) {
        expect(result.stdout + result.stderr).not.toContain("SANDBOX");
        expect(result.stdout + result.stderr).not.toContain(accounts.env().CERTSCHED_ACCOUNTS);
        for (const secret of accounts.secrets()) {
          expect(result.stdout + result.stderr).not.toContain(secret);
        }
      }
    } finally {
      await accounts.close();
    }
  });

  it("with CERTSCHED_BASE_URL set exits 0 when the sweep succeeds", async () => {
    sim = await startSimulator({
      certificates: [{ certificateName: "ok", expiryDate: inDays(3) }],
    });

    const result = await runNode(START, [], { env: sandboxSettings(sim), cwd: await emptyDir() });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain("1 due: 1 renewal-scheduled.");
    expectNoSecret(result, sim);
  });
});

/** One account object of the printed CERTSCHED_ACCOUNTS as the single-account settings. */
function singleAccountEnv(account: Record<string, string>): Record<string, string> {
  return {
    CERTSCHED_BASE_URL: account.baseUrl ?? "",
    CERTSCHED_SUBSCRIPTION: account.subscription ?? "",
    CERTSCHED_SUBSCRIPTION_ID: account.subscriptionId ?? "",
    CERTSCHED_API_KEY: account.apiKey ?? "",
    CERTSCHED_TENANT_ID: account.tenantId ?? "",
    CERTSCHED_CLIENT_ID: account.clientId ?? "",
    CERTSCHED_CLIENT_SECRET: account.clientSecret ?? "",
    CERTSCHED_TOKEN_URL: account.tokenUrl ?? "",
  };
}

describe("certsched sandbox", () => {
  it("prints CERTSCHED_ACCOUNTS for two accounts that work, serves until SIGTERM, then exits 0", async () => {
    const child = spawn(process.execPath, [CLI, "sandbox"], {
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let caPath: string | undefined;
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = once(child, "exit");
    try {
      // The settings are complete once the last one, the CA's file, has been printed.
      child.stdout.setEncoding("utf8");
      for await (const chunk of child.stdout) {
        stdout += chunk;
        if (/^NODE_EXTRA_CA_CERTS=.*\n/m.test(stdout)) break;
      }
      const settings = Object.fromEntries(
        stdout
          .trim()
          .split("\n")
          .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
      );
      // The accounts, never the single-account settings.
      expect(Object.keys(settings).sort()).toEqual([
        "CERTSCHED_ACCOUNTS",
        "CERTSCHED_ARI_DIRECTORIES",
        "CERTSCHED_ARI_TIMEOUT",
        "CERTSCHED_ARM_URL",
        "CERTSCHED_DNS_SERVERS",
        "CERTSCHED_PREFLIGHT_TIMEOUT",
        "CERTSCHED_VERIFY_CONNECT_TO",
        "NODE_EXTRA_CA_CERTS",
      ]);
      const accounts = JSON.parse(settings.CERTSCHED_ACCOUNTS ?? "[]") as Record<string, string>[];
      expect(accounts.map((a) => a.name)).toEqual(["contoso", "fabrikam"]);
      // Each its own service, subscription, tenant, app registration and secrets.
      for (const field of ["baseUrl", "subscription", "tenantId", "clientId", "apiKey"]) {
        expect(new Set(accounts.map((a) => a[field])).size, field).toBe(2);
      }
      expect(stderr).toContain("=== certsched SANDBOX ===");
      expect(stderr.replaceAll("\n", " ")).toMatch(
        /contoso: http:\/\/127\.0\.0\.1:\d+ with 9 sample certificates; its hosting side serves the App Service certificates over TLS on 127\.0\.0\.1:\d+/,
      );
      expect(stderr.replaceAll("\n", " ")).toMatch(
        /fabrikam: http:\/\/127\.0\.0\.1:\d+ with 6 sample certificates/,
      );

      // Each printed account works with its own credentials: its due list, its shared name.
      for (const [index, account] of accounts.entries()) {
        const name = account.name as "contoso" | "fabrikam";
        const due = await runCli(["due", "--json"], { env: singleAccountEnv(account) });

        expect(due.code, name).toBe(0);
        const names = jsonOf<{ certificates: { certificateName: string }[] }>(due).certificates.map(
          (c) => c.certificateName,
        );
        expect(names.sort()).toEqual([...SANDBOX_DUE[name]].sort());
        expectNoSandboxAccountSecret(due);
        expect(index).toBeLessThan(2);
      }

      // The hosting sides, reached through the printed connect-to and trusted through the one
      // CA file holding both simulators' CAs.
      caPath = settings.NODE_EXTRA_CA_CERTS;
      const connectTo = settings.CERTSCHED_VERIFY_CONNECT_TO ?? "";
      expect(connectTo).toMatch(/^kv-contoso\.vault\.azure\.net:443:127\.0\.0\.1:\d+,/);
      expect(connectTo).toMatch(/,kv-fabrikam\.vault\.azure\.net:443:127\.0\.0\.1:\d+,/);
      expect(connectTo).toMatch(/(^|,)www\.contoso\.com:443:127\.0\.0\.1:\d+(,|$)/);
      expect(connectTo).toMatch(/(^|,)legacy\.fabrikam\.com:443:127\.0\.0\.1:\d+(,|$)/);
      // No catch-all: a name neither simulator serves is sent nowhere but where it lives.
      expect(connectTo).not.toContain("::");
      const pem = readFileSync(caPath ?? "", "utf8");
      // Both hosting sides' CAs, the sandbox ARM's and its ACME's (ARI).
      expect(pem.match(/-----BEGIN CERTIFICATE-----/g)).toHaveLength(4);
      const domains = [
        "--domain",
        "blog.contoso.com",
        "--domain",
        "shop.contoso.com",
        "--domain",
        "partners.fabrikam.com",
      ];
      const verifyEnv = {
        CERTSCHED_VERIFY_CONNECT_TO: connectTo,
        NODE_EXTRA_CA_CERTS: caPath ?? "",
      };
      const verified = await runCli(["verify", "--json", ...domains], { env: verifyEnv });
      const distrusted = await runCli(["verify", "--json", ...domains], {
        env: { CERTSCHED_VERIFY_CONNECT_TO: connectTo },
      });

      expect(verified.code).toBe(0);
      const results = jsonOf<VerifyDocument>(verified).results;
      expect(results.map((r) => [r.domain, r.status, r.daysLeft])).toEqual([
        ["blog.contoso.com", "ok", 44],
        ["shop.contoso.com", "expiring", 11],
        ["partners.fabrikam.com", "ok", 20],
      ]);
      expect(results[0]?.issuer).toContain("O=certsched simulator");
      expect(distrusted.code).toBe(1);
      // The simulator's CA issues the leaves itself and sends only them: without the CA file
      // their issuer is neither sent nor trusted, which the contract calls incomplete-chain.
      expect(jsonOf<VerifyDocument>(distrusted).results.map((r) => r.status)).toEqual([
        "incomplete-chain",
        "incomplete-chain",
        "incomplete-chain",
      ]);

      // Without --domain, account by account: the due list, Key Vault certificates read from
      // that account's vault with its own vault token, reached through the printed connect-to,
      // trusted through the CA file. Nothing was swept, so they are judged by their expiry alone.
      const vaultOf = async (account: Record<string, string>) => {
        const all = await runCli(["verify", "--json"], {
          env: { ...singleAccountEnv(account), ...verifyEnv },
        });
        expectNoSandboxAccountSecret(all);
        return jsonOf<VerifyDocument>(all)
          .results.filter((r) => r.source === "keyvault")
          .map((r) => [r.domain, r.status, r.daysLeft]);
      };
      expect(await vaultOf(accounts[0] ?? {})).toEqual([
        ["kv-contoso/api-contoso-com", "ok", 18],
        ["kv-contoso/intranet-contoso-com", "expiring", 7],
        ["kv-contoso/wildcard", "expiring", 9],
      ]);
      expect(await vaultOf(accounts[1] ?? {})).toEqual([
        ["kv-fabrikam/vault-fabrikam-com", "expiring", 1],
        ["kv-fabrikam/wildcard", "expiring", 12],
      ]);

      // Preflight from another process, as an operator would: the printed ARM is trusted only
      // through NODE_EXTRA_CA_CERTS (the contract), DNS and the challenge through the printed
      // servers and connect-to. The two staged causes, and every other due certificate ready.
      const preflight = await runCli(["preflight", "--json", "--account", "contoso"], {
        env: {
          CERTSCHED_ACCOUNTS: settings.CERTSCHED_ACCOUNTS ?? "",
          CERTSCHED_ARM_URL: settings.CERTSCHED_ARM_URL ?? "",
          CERTSCHED_DNS_SERVERS: settings.CERTSCHED_DNS_SERVERS ?? "",
          CERTSCHED_PREFLIGHT_TIMEOUT: settings.CERTSCHED_PREFLIGHT_TIMEOUT ?? "",
          ...verifyEnv,
        },
      });
      expectNoSandboxAccountSecret(preflight);
      expect(preflight.code, preflight.stderr).toBe(1);
      const checked = jsonOf<{
        results: { certificateName: string; status: string; checks: { reason: string | null }[] }[];
      }>(preflight).results.map((r) => [
        r.certificateName,
        r.status,
        r.checks.flatMap((c) => (c.reason ? [c.reason] : [])),
      ]);
      expect(checked.sort()).toEqual(
        [
          ["api-contoso-com", "ready", []],
          ["intranet-contoso-com", "will-fail", ["dns-zone-missing"]],
          ["shop-contoso-com", "ready", []],
          ["staging-contoso-com", "will-fail", ["caa-forbids"]],
          ["wildcard", "ready", []],
          ["www-contoso-com", "ready", []],
        ].sort(),
      );
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = await exited;
    expect(code).toBe(0);
    expect(stderr).toContain("certsched sandbox stopped (SIGTERM)");
    // The CA's file goes with the sandbox.
    expect(caPath && existsSync(caPath)).toBe(false);
  });

  it("--port must be a port number (exit 2)", async () => {
    const result = await runCli(["sandbox", "--port", "70000"]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--port must be a whole number from 0 to 65535");
  });
});

/** The sandbox's sweep of its first account alone, with the account's own runtime. */
async function sweepContoso(sandbox: Sandbox): Promise<void> {
  const services = sandboxServices(sandbox);
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  try {
    await sweep(services.forAccount("contoso"), quiet, { trigger: "cli" });
  } finally {
    await services.close();
  }
}

describe("the sandbox's verification", () => {
  it("passes with the staged not-landed alone: any other bad status fails it, and the note no longer promises exit 0", async () => {
    const sandbox = await startSandbox();
    try {
      await sweepContoso(sandbox);

      const staged = await verifySandbox(sandbox);
      sandbox.account("contoso").hosting.inject("www-contoso-com", "wrong-name");
      const broken = await verifySandbox(sandbox);

      expect(staged).toMatchObject({ passes: true, staged: ["shop-contoso-com"] });
      expect(staged).toMatchObject({ account: "contoso" });
      expect(staged.counts).toEqual({ "not-landed": 1, "not-synced": 1, expiring: 2, ok: 9 });
      expect(staged.notSynced).toEqual(["cdn.contoso.com"]);
      expect(
        renderSandboxVerification(
          staged,
          palette({ isTTY: false, columns: undefined, write: () => {} }, {}),
          80,
        ).join(" "),
      ).toContain(
        "Expected in the sandbox: the service renewed cdn-contoso-com 30 hours ago and its vault holds the new version since, but cdn.contoso.com still serves the previous one",
      );
      expect(broken).toMatchObject({ passes: false, staged: ["shop-contoso-com"] });
      expect(broken.results.find((r) => r.domain === "www.contoso.com")?.status).toBe("mismatch");
      const plain = palette({ isTTY: false, columns: undefined, write: () => {} }, {});
      const text = renderSandboxVerification(broken, plain, 80).join(" ");
      expect(text).toContain("Expected in the sandbox: the service renewed shop-contoso-com");
      expect(text).toContain("here it is part of the demo.");
      expect(text).not.toContain("so the exit code is 0");
    } finally {
      await sandbox.close();
    }
  });

  it("a Key Vault certificate whose vault keeps the old version is not-landed, and fails it", async () => {
    const sandbox = await startSandbox();
    try {
      sandbox.account("contoso").hosting.inject("api-contoso-com", "keep-old-version");
      // Without the sandbox's calendar, which holds api-contoso-com for its window.
      await sweepContoso({ ...sandbox, calendars: {} });

      const verification = await verifySandbox(sandbox);

      expect(verification).toMatchObject({ passes: false, staged: ["shop-contoso-com"] });
      expect(
        verification.results.find((r) => r.certificateName === "api-contoso-com"),
      ).toMatchObject({
        domain: "kv-contoso/api-contoso-com",
        source: "keyvault",
        status: "not-landed",
      });
      // Its domain too: the vault still holds the old version, so the renewal has not landed
      // there either (not not-synced: there is no newer version to pick up).
      expect(verification.results.find((r) => r.domain === "api.contoso.com")?.status).toBe(
        "not-landed",
      );
      expect(verification.counts).toEqual({
        "not-landed": 3,
        "not-synced": 1,
        expiring: 2,
        ok: 7,
      });
    } finally {
      await sandbox.close();
    }
  });
});
