import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  SAMPLE_REFUSAL,
  type Simulator,
  sandboxSettings,
  startSimulator,
} from "../../sim/index.js";
import { CLI, ensureBuilt, ROOT, runCli, runNode, START } from "./build.js";
import { expectNoSandboxSecret, expectNoSecret, inDays, jsonOf, tempDir } from "./helpers.js";

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
    expect(out).not.toMatch(/blog-contoso-com|partners-fabrikam-com/);
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
    }>(result);
    expect(doc.sandbox).toBe(true);
    expect(doc.stagedFailures).toEqual(["intranet-contoso-com"]);
    expect(doc.counts).toMatchObject({ due: 7, "renewal-scheduled": 6, failed: 1 });
    expect(new Set(doc.results.map((r) => r.target))).toEqual(
      new Set(["Cloud App Service", "Cloud Key Vault + DNS"]),
    );
    // The banner still says where this came from, on stderr.
    expect(result.stderr).toContain("=== certsched SANDBOX ===");
    expectNoSandboxSecret(result);
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
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = once(child, "exit");
    try {
      // The settings are complete once the last one, the token URL, has been printed.
      child.stdout.setEncoding("utf8");
      for await (const chunk of child.stdout) {
        stdout += chunk;
        if (/^CERTSCHED_TOKEN_URL=.*\n/m.test(stdout)) break;
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
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = await exited;
    expect(code).toBe(0);
    expect(stderr).toContain("certsched sandbox stopped (SIGTERM)");
  });

  it("--port must be a port number (exit 2)", async () => {
    const result = await runCli(["sandbox", "--port", "70000"]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--port must be a whole number from 0 to 65535");
  });
});
