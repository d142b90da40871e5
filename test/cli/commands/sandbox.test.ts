import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { palette } from "../../../cli/output/color.js";
import { renderSandboxVerification, startSandbox, verifySandbox } from "../../../cli/sandbox.js";
import { loadSettings } from "../../../shared/app/config/settings.js";
import { createRuntime } from "../../../shared/app/services.js";
import { sweepWith } from "../../../shared/usecases/sweep.js";
import {
  SAMPLE_REFUSAL,
  type Simulator,
  sandboxSettings,
  startSimulator,
} from "../../../sim/index.js";
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

/** The App Service sample domains whose renewal lands (or that were not due): ok. */
const SANDBOX_OK_DOMAINS = [
  "www.contoso.com",
  "legacy.fabrikam.com",
  "staging.contoso.com",
  "blog.contoso.com",
  "static.contoso.com",
  "partners.fabrikam.com",
];

/** The Key Vault sample certificates in the simulator's vault whose version is current: ok. */
const SANDBOX_OK_VAULT = [
  "api-contoso-com",
  "vault-fabrikam-com",
  "mail-fabrikam-com",
  "docs-fabrikam-com",
];

/** The domain as a regular expression (the table is not cut: stdout is not a terminal). */
const rowOf = (domain: string) => domain.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

const SANDBOX_NAMES = [
  "www-contoso-com",
  "shop-contoso-com",
  "api-contoso-com",
  "legacy-fabrikam-com",
  "vault-fabrikam-com",
  "intranet-contoso-com",
  "staging-contoso-com",
];

describe("npm start (scripts/start.mjs)", () => {
  it("without CERTSCHED_BASE_URL sweeps the sandbox under a banner and exits 0", async () => {
    const result = await runNode(START, [], { cwd: ROOT });

    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain("=== certsched SANDBOX ===");
    expect(out).toContain("This is the sandbox");
    expect(out).toContain("To use the real service, set CERTSCHED_BASE_URL");
    expect(out).toMatch(/^CERTIFICATE\s+TARGET\s+EXPIRES \(UTC\)\s+OUTCOME$/m);
    for (const name of SANDBOX_NAMES) expect(out).toMatch(new RegExp(`^${name}\\s`, "m"));
    // Both targets, the staged refusal, and the summary with the explanation.
    expect(out).toMatch(/Cloud App Service/);
    expect(out).toMatch(/Cloud Key Vault \+ DNS/);
    expect(out).toMatch(/^intranet-contoso-com\s.*\sfailed\s/m);
    expect(out).toContain(SAMPLE_REFUSAL);
    expect(out).toContain("7 due: 6 renewal-scheduled, 1 failed.");
    expect(out).toContain("Expected in the sandbox");
    expect(out).toContain("so the exit code is 0");
    expect(out).not.toMatch(/^(blog|partners)-\S+\s/m);
    // Then the verification of what each App Service domain serves, one not-landed on purpose.
    expect(out).toContain("Verification, as certsched verify sees it 2 h after the sweep");
    expect(out).toMatch(/^DOMAIN\s+STATUS\s+EXPIRES \(UTC\)\s+ISSUER$/m);
    for (const domain of SANDBOX_OK_DOMAINS) {
      expect(out).toMatch(
        new RegExp(`^${domain.replaceAll(".", "\\.")}\\s+ok\\s.*certsched simulator$`, "m"),
      );
    }
    expect(out).toMatch(
      /^shop\.contoso\.com\s+not-landed\s+\S+ \(11 days left\)\s+certsched simulator$/m,
    );
    // The Key Vault certificates, read from the simulator's vault through the same connect-to.
    for (const name of SANDBOX_OK_VAULT) {
      expect(out).toMatch(new RegExp(`^${rowOf(`kv-certsched/${name}`)}\\s+ok\\s`, "m"));
    }
    // The one whose renewal is refused on purpose: nothing renewed it, so it is expiring.
    expect(out).toMatch(
      new RegExp(`^${rowOf("kv-certsched/intranet-contoso-com")}\\s+expiring\\s`, "m"),
    );
    expect(out.replaceAll("\n", " ")).toContain(
      "intranet-contoso-com is expiring because the simulator refuses its renewal on purpose (the staged failure above)",
    );
    expect(out).toMatch(
      /^shop\.contoso\.com not-landed:\n {2}renewal accepted at \S+Z, more than 2 h ago \(CERTSCHED_VERIFY_WINDOW\), but the certificate served still expires at \S+Z, no later than before the renewal \(\S+Z\)\n {2}The service renewed, but the endpoint still serves the old certificate/m,
    );
    expect(out).toContain("12 checked: 1 not-landed, 1 expiring, 10 ok.");
    expect(out.replaceAll("\n", " ")).toContain(
      'Expected in the sandbox: the service renewed shop-contoso-com, but the simulator\'s hosting endpoint keeps serving the old certificate on purpose, to show what "renewed, but the site still serves the old certificate" looks like. Against a real service not-landed makes certsched verify exit with code 1; here it is part of the demo, so the exit code is 0.',
    );
    // The sandbox's own credentials and tokens are not printed by a sweep either.
    expectNoSandboxSecret(result);
    // Nothing ordinary was blanked out as if it were one (a secret that is a word would be).
    expect(out + result.stderr).not.toContain("[REDACTED]");
  });

  it("passes extra arguments to the sweep: --json gives one document with the staged failure", async () => {
    const result = await runNode(START, ["--json"], { cwd: ROOT });

    expect(result.code).toBe(0);
    const doc = jsonOf<{
      sandbox: boolean;
      stagedFailures: string[];
      counts: Record<string, number>;
      results: { certificateName: string; target: string; outcome: string }[];
      sandboxVerification: {
        counts: Record<string, number>;
        staged: string[];
        passes: boolean;
        results: { domain: string; certificateName?: string; source: string; status: string }[];
      };
    }>(result);
    expect(doc.sandbox).toBe(true);
    expect(doc.stagedFailures).toEqual(["intranet-contoso-com"]);
    expect(doc.counts).toMatchObject({ due: 7, "renewal-scheduled": 6, failed: 1 });
    expect(new Set(doc.results.map((r) => r.target))).toEqual(
      new Set(["Cloud App Service", "Cloud Key Vault + DNS"]),
    );
    expect(doc.sandboxVerification.counts).toEqual({ "not-landed": 1, expiring: 1, ok: 10 });
    expect(doc.sandboxVerification.staged).toEqual(["shop-contoso-com"]);
    expect(doc.sandboxVerification.passes).toBe(true);
    const shop = doc.sandboxVerification.results.find(
      (r) => r.certificateName === "shop-contoso-com",
    );
    expect(shop).toMatchObject({ domain: "shop.contoso.com", source: "tls", status: "not-landed" });
    const vault = doc.sandboxVerification.results.filter((r) => r.source === "keyvault");
    expect(Object.fromEntries(vault.map((r) => [r.certificateName, [r.domain, r.status]]))).toEqual(
      {
        "api-contoso-com": ["kv-certsched/api-contoso-com", "ok"],
        "vault-fabrikam-com": ["kv-certsched/vault-fabrikam-com", "ok"],
        "intranet-contoso-com": ["kv-certsched/intranet-contoso-com", "expiring"],
        "mail-fabrikam-com": ["kv-certsched/mail-fabrikam-com", "ok"],
        "docs-fabrikam-com": ["kv-certsched/docs-fabrikam-com", "ok"],
      },
    );
    // The banner still says where this came from, on stderr.
    expect(result.stderr).toContain("=== certsched SANDBOX ===");
    expectNoSandboxSecret(result);
  });

  it("--dry-run renews nothing, so there is no verification to show", async () => {
    const result = await runNode(START, ["--dry-run"], { cwd: ROOT });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain("7 due: 7 would-renew.");
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

describe("certsched sandbox", () => {
  it("prints settings that work, serves until SIGTERM, then exits 0", async () => {
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
      expect(Object.keys(settings)).toEqual(
        expect.arrayContaining([
          "CERTSCHED_BASE_URL",
          "CERTSCHED_CLIENT_SECRET",
          "CERTSCHED_API_KEY",
        ]),
      );

      const due = await runCli(["due", "--json"], { env: settings });

      expect(due.code).toBe(0);
      const names = jsonOf<{ certificates: { certificateName: string }[] }>(due).certificates.map(
        (c) => c.certificateName,
      );
      expect(names.sort()).toEqual([...SANDBOX_NAMES].sort());
      expectNoSandboxSecret(due, settings);
      expect(stderr).toContain("=== certsched SANDBOX ===");
      expect(stderr).toMatch(
        /hosting side serves the App Service certificates over TLS on\s+127\.0\.0\.1:\d+/,
      );

      // The hosting side, reached through the printed connect-to and trusted through the CA file.
      caPath = settings.NODE_EXTRA_CA_CERTS;
      // The vault's host to the simulator's vault first, then every other name to the endpoint.
      expect(settings.CERTSCHED_VERIFY_CONNECT_TO).toMatch(
        /^kv-certsched\.vault\.azure\.net:443:127\.0\.0\.1:\d+,::127\.0\.0\.1:\d+$/,
      );
      expect(readFileSync(caPath ?? "", "utf8")).toContain("-----BEGIN CERTIFICATE-----");
      const domains = ["--domain", "blog.contoso.com", "--domain", "shop.contoso.com"];
      const verified = await runCli(["verify", "--json", ...domains], { env: settings });
      const { NODE_EXTRA_CA_CERTS: _, ...untrusting } = settings;
      const distrusted = await runCli(["verify", "--json", ...domains], { env: untrusting });

      expect(verified.code).toBe(0);
      const results = jsonOf<VerifyDocument>(verified).results;
      expect(results.map((r) => [r.domain, r.status, r.daysLeft])).toEqual([
        ["blog.contoso.com", "ok", 44],
        ["shop.contoso.com", "expiring", 11],
      ]);
      expect(results[0]?.issuer).toContain("O=certsched simulator");
      expect(distrusted.code).toBe(1);
      expect(jsonOf<VerifyDocument>(distrusted).results.map((r) => r.status)).toEqual([
        "untrusted",
        "untrusted",
      ]);

      // Without --domain: the due list, Key Vault certificates read from the simulator's vault
      // with the sandbox's vault token, reached through the printed connect-to, trusted
      // through the CA file. Nothing was swept, so they are judged by their expiry alone.
      const all = await runCli(["verify", "--json"], { env: settings });
      const vault = jsonOf<VerifyDocument>(all).results.filter((r) => r.source === "keyvault");
      expect(vault.map((r) => [r.domain, r.status, r.daysLeft])).toEqual([
        ["kv-certsched/api-contoso-com", "ok", 18],
        ["kv-certsched/vault-fabrikam-com", "expiring", 1],
        ["kv-certsched/intranet-contoso-com", "expiring", 7],
      ]);
      expect(vault[0]?.issuer).toContain("O=certsched simulator");
      expectNoSandboxSecret(all, settings);
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

describe("the sandbox's verification", () => {
  it("passes with the staged not-landed alone: any other bad status fails it, and the note no longer promises exit 0", async () => {
    const sandbox = await startSandbox();
    try {
      const runtime = createRuntime(loadSettings(sandbox.settings), { ledger: sandbox.ledger });
      const quiet = { info: () => {}, warn: () => {}, error: () => {} };
      try {
        await sweepWith(runtime, quiet, { trigger: "cli" });
      } finally {
        await runtime.close();
      }

      const staged = await verifySandbox(sandbox);
      sandbox.hosting.inject("www-contoso-com", "wrong-name");
      const broken = await verifySandbox(sandbox);

      expect(staged).toMatchObject({ passes: true, staged: ["shop-contoso-com"] });
      expect(staged.counts).toEqual({ "not-landed": 1, expiring: 1, ok: 10 });
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
      sandbox.hosting.inject("api-contoso-com", "keep-old-version");
      const runtime = createRuntime(loadSettings(sandbox.settings), { ledger: sandbox.ledger });
      const quiet = { info: () => {}, warn: () => {}, error: () => {} };
      try {
        await sweepWith(runtime, quiet, { trigger: "cli" });
      } finally {
        await runtime.close();
      }

      const verification = await verifySandbox(sandbox);

      expect(verification).toMatchObject({ passes: false, staged: ["shop-contoso-com"] });
      expect(
        verification.results.find((r) => r.certificateName === "api-contoso-com"),
      ).toMatchObject({
        domain: "kv-certsched/api-contoso-com",
        source: "keyvault",
        status: "not-landed",
      });
      expect(verification.counts).toEqual({ "not-landed": 2, expiring: 1, ok: 9 });
    } finally {
      await sandbox.close();
    }
  });
});
