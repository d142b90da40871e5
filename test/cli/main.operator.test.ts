import { spawn, spawnSync } from "node:child_process";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { visibleWidth } from "../../cli/output/text.js";
import { COMMANDS } from "../../cli/registry.js";
import {
  type SeedCertificate,
  type Simulator,
  sandboxSettings,
  startSimulator,
} from "../../sim/index.js";
import { cliAgainst, inDays, jsonOf, tempDir } from "../support/cli.js";
import { CLI, ensureBuilt, ROOT, runCli } from "../support/cliBuild.js";
import { runInTerminal, screenLines, unwrapped } from "../support/terminal.js";

/*
 * What an operator sees at 2 a.m., in a real pseudo-terminal (80 and 120 columns, colour on) and
 * through a pipe (colour off). Every test asserts on what is printed and on the exit code.
 */

const ANSI = "\u001b[";
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const OUR_SEQUENCES = /\u001b\[(?:1|2|22|31|32|33|36|39)m|\r\u001b\[2K/g;
/** What a pseudo-terminal may show besides our sequences: its own CRLF line ends. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL_BUT_LINE_ENDS = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
// A cause longer than any terminal line, with words the test can find again after wrapping.
const LONG_REFUSAL = `Renewal refused: the DNS zone 'contoso-dns' in resource group 'rg-dns-production-westeurope' does not hold the _acme-challenge record the validation needs; ask the DNS owners to delegate it, then try again (${"x".repeat(60)}).`;
const LONG_NAME = "intranet-eu-west-payments-gateway-contoso-com";

let sim: Simulator | undefined;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function certificates(): SeedCertificate[] {
  return [
    { certificateName: "www-contoso-com", expiryDate: inDays(3) },
    { certificateName: LONG_NAME, expiryDate: inDays(5), refuseRenewal: LONG_REFUSAL },
    {
      certificateName: "api-fabrikam-com",
      expiryDate: inDays(-1.5),
      target: "Cloud Key Vault + DNS",
    },
  ];
}

function expectFits(lines: readonly string[], columns: number): void {
  const wide = lines.filter((line) => visibleWidth(line) > columns);
  expect(wide, `lines wider than ${columns} columns`).toEqual([]);
}

describe("sweep in a terminal", () => {
  it.each([80, 120])(
    "at %i columns: no line wider than the terminal, colour on, every cause in full (exit 1)",
    async (columns) => {
      sim = await startSimulator({ certificates: certificates() });

      const result = await runInTerminal(["sweep"], { columns, env: sandboxSettings(sim) });

      expect(result.code).toBe(1);
      expect(result.raw).toContain(`${ANSI}1mCERTIFICATE`);
      const lines = screenLines(result.raw);
      expectFits(lines, columns);
      // The failed certificate's name and cause, each in full, below the table.
      expect(lines).toContain(`${LONG_NAME} failed:`);
      expect(unwrapped(result.raw)).toContain(`400: ${LONG_REFUSAL}`);
      expect(result.raw).not.toContain("the service answered 400");
      // The table keeps the expiry and the outcome whole on every row.
      expect(lines.some((l) => /\(expired 1 day ago\)\s+renewal-scheduled$/.test(l))).toBe(true);
      expect(lines.some((l) => /\(4 days left\)\s+failed$/.test(l))).toBe(true);
    },
  );

  it("piped: colour off, nothing cut, the cause on one line (exit 1)", async () => {
    sim = await startSimulator({ certificates: certificates() });

    const result = await cliAgainst(sim, ["sweep"]);

    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).not.toContain(ANSI);
    expect(result.stdout).toContain(`\n${LONG_NAME} failed:\n  400: ${LONG_REFUSAL}\n`);
    expect(result.stdout).toMatch(new RegExp(`^${LONG_NAME}\\s+Cloud App Service\\s+`, "m"));
  });

  it("due at 80 columns fits, cutting the leading columns, never the expiry", async () => {
    sim = await startSimulator({ certificates: certificates() });

    const result = await runInTerminal(["due"], { columns: 80, env: sandboxSettings(sim) });

    expect(result.code).toBe(0);
    const lines = screenLines(result.raw);
    expectFits(lines, 80);
    expect(lines.some((l) => l.includes("(expired 1 day ago)"))).toBe(true);
    expect(lines.some((l) => l.includes("…"))).toBe(true);
  });

  it("says the list failed instead of '0 due', with the service's words (exit 1)", async () => {
    sim = await startSimulator({ certificates: certificates() });
    sim.inject("list", {
      status: 400,
      body: "Subscription suspended",
      times: Number.POSITIVE_INFINITY,
    });

    const result = await cliAgainst(sim, ["sweep"]);

    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "The list of certificates due failed: nothing was decided or renewed.",
    );
    expect(result.stdout).toContain("  400: Subscription suspended");
    expect(result.stdout).not.toMatch(/\b0 due\b/);
  });
});

describe("terminal injection", () => {
  it("escape sequences from names and upstream words never reach the terminal raw", async () => {
    const hostile = "evil\u001b]0;pwned\u0007\u001b[2J\u001b]8;;https://evil.example\u0007x";
    sim = await startSimulator({
      certificates: [
        { certificateName: hostile, expiryDate: inDays(2) },
        {
          certificateName: "refused",
          expiryDate: inDays(3),
          refuseRenewal: `no\u001b[2J\r\nfake line${hostile}`,
        },
      ],
    });

    // A dry run first: the sweeps after it renew the certificates, and the list no longer has them.
    const json = await cliAgainst(sim, ["sweep", "--json", "--dry-run"]);
    const tty = await runInTerminal(["sweep"], { columns: 100, env: sandboxSettings(sim) });
    const pipe = await cliAgainst(sim, ["sweep"]);
    const renew = await runInTerminal(["renew", "refused"], {
      columns: 80,
      env: sandboxSettings(sim),
    });

    // Our own colours and the progress line's erase are the only sequences left.
    expect(tty.raw.replace(OUR_SEQUENCES, "")).not.toMatch(CONTROL_BUT_LINE_ENDS);
    expect(tty.raw).toContain("\\u{1b}]0;pwned");
    expect(pipe.stdout + pipe.stderr).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(pipe.stdout).not.toMatch(/^fake line/m);
    // An error's message quotes the service's words: escaped as well (exit 1 unchanged).
    expect(renew.code).toBe(1);
    expect(unwrapped(renew.raw)).toContain("answered 400: no");
    expect(renew.raw.replace(OUR_SEQUENCES, "")).not.toMatch(CONTROL_BUT_LINE_ENDS);
    expect(screenLines(renew.raw).some((l) => l.startsWith("fake line"))).toBe(false);
    // --json stays one valid document, the names exactly as the service sent them.
    expect(json.stdout).not.toMatch(CONTROL_BUT_NEWLINE);
    // (A name with control characters is a record the sweep rejects: named, never renewed.)
    const doc = jsonOf<{
      results: { certificateName: string }[];
      rejected: { certificateName?: string }[];
    }>(json);
    const names = [...doc.results, ...doc.rejected].map((r) => r.certificateName);
    expect(names).toContain(hostile);
    expect(tty.code).toBe(1);
  });
});

describe("settings", () => {
  it.each([
    ["CERTSCHED_DRYRUN"],
    ["CERTSCHED_DRY_RUNS"],
    ["certsched_dry_run"],
    ["CERTSHED_DRY_RUN"],
  ])(
    "%s=true refuses to run, naming it and CERTSCHED_DRY_RUN, and sends nothing (exit 2)",
    async (name) => {
      sim = await startSimulator({ certificates: certificates() });

      const result = await cliAgainst(sim, ["sweep"], { env: { [name]: "true" } });

      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `${name}: (in the environment) is not a certsched setting: did you mean CERTSCHED_DRY_RUN?`,
      );
      expect(result.stderr).toContain("Refusing to run");
      expect(sim.requests).toEqual([]);
    },
  );

  it("a misspelt dry-run switch in local.settings.json is refused too (exit 2)", async () => {
    sim = await startSimulator({ certificates: certificates() });
    const dir = await tempDir();
    try {
      await writeFile(
        join(dir.path, "local.settings.json"),
        JSON.stringify({ Values: { CERTSCHED_DRYRUN: "true" } }),
      );

      const result = await cliAgainst(sim, ["sweep"], { cwd: dir.path });

      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        "CERTSCHED_DRYRUN: (in local.settings.json) is not a certsched setting: did you mean CERTSCHED_DRY_RUN?",
      );
      expect(sim.requests).toEqual([]);
    } finally {
      await dir.remove();
    }
  });

  it("another unknown CERTSCHED_* name is a warning with the closest name; the command runs", async () => {
    sim = await startSimulator({ certificates: certificates() });

    const result = await cliAgainst(sim, ["due"], { env: { CERTSCHED_HTTP_TIMEOUTS: "5s" } });

    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "certsched: warning: CERTSCHED_HTTP_TIMEOUTS (in the environment) is not a certsched setting: did you mean CERTSCHED_HTTP_TIMEOUT? It is ignored.",
    );
  });

  it("renew with nothing set names every setting it needs in one message (exit 2)", async () => {
    const result = await runCli(["renew", "x"], { cwd: "/" });

    expect(result.code).toBe(2);
    const named = [...result.stderr.matchAll(/^ {2}- (CERTSCHED_\w+):/gm)].map((m) => m[1]);
    expect(named).toEqual([
      "CERTSCHED_BASE_URL",
      "CERTSCHED_SUBSCRIPTION",
      "CERTSCHED_API_KEY",
      "CERTSCHED_TENANT_ID",
      "CERTSCHED_CLIENT_ID",
      "CERTSCHED_CLIENT_SECRET",
    ]);
    expect(result.stderr.match(/certsched: error:/g)).toHaveLength(1);
  });

  it("a copied sample local.settings.json is refused, naming each placeholder (exit 2, nothing sent)", async () => {
    const dir = await tempDir();
    try {
      await copyFile(
        join(ROOT, "local.settings.sample.json"),
        join(dir.path, "local.settings.json"),
      );

      const result = await runCli(["due"], { cwd: dir.path });

      expect(result.code).toBe(2);
      for (const name of [
        "CERTSCHED_SUBSCRIPTION",
        "CERTSCHED_TENANT_ID",
        "CERTSCHED_CLIENT_ID",
        "CERTSCHED_KEY_VAULT_URL",
      ]) {
        expect(result.stderr).toContain(
          `- ${name}: still holds a placeholder from local.settings.sample.json`,
        );
      }
      expect(result.stderr).not.toContain("unreachable");
    } finally {
      await dir.remove();
    }
  });
});

describe("errors that say where", () => {
  async function withSettingsFile(text: string, args: readonly string[]) {
    const dir = await tempDir();
    try {
      await writeFile(join(dir.path, "local.settings.json"), text);
      return await runCli(args, { cwd: dir.path });
    } finally {
      await dir.remove();
    }
  }

  it("local.settings.json: a syntax error by line and column, quoting nothing (exit 2)", async () => {
    const text = '{\n  "Values": {\n    "CERTSCHED_CLIENT_SECRET": "s3cret-value",\n  }\n}\n';

    const result = await withSettingsFile(text, ["due"]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "- local.settings.json: is not valid JSON: line 4, column 3: a comma before the closing brace",
    );
    expect(result.stderr).not.toContain("s3cret-value");
  });

  it('local.settings.json with a UTF-8 BOM is read; without "Values" it says so', async () => {
    sim = await startSimulator({ certificates: certificates() });
    const values = sandboxSettings(sim);
    const dir = await tempDir();
    try {
      await writeFile(
        join(dir.path, "local.settings.json"),
        `\ufeff${JSON.stringify({ Values: values })}`,
      );
      const bom = await runCli(["due"], { cwd: dir.path });
      await writeFile(join(dir.path, "local.settings.json"), JSON.stringify(values));
      const flat = await runCli(["due"], { cwd: dir.path });

      expect(bom.code).toBe(0);
      expect(bom.stdout).toContain(LONG_NAME);
      expect(flat.code).toBe(2);
      expect(flat.stderr).toContain('- local.settings.json: has no "Values" object');
    } finally {
      await dir.remove();
    }
  });

  it("a create file: line and column of the syntax error (exit 2, nothing sent)", async () => {
    sim = await startSimulator();
    const dir = await tempDir();
    try {
      await writeFile(
        join(dir.path, "request.json"),
        '{\n  "certificateName": "www",\n  "isSAN": tru\n}',
      );

      const result = await cliAgainst(sim, ["create", "--file", "request.json"], { cwd: dir.path });

      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /request\.json is not valid JSON: line 3, column 12: expected a value/,
      );
      expect(sim.requests).toEqual([]);
    } finally {
      await dir.remove();
    }
  });

  it("unreachable: the URL tried and the setting to check (exit 1)", async () => {
    sim = await startSimulator();
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}`;

    const result = await cliAgainst(sim, ["test"], { env: { CERTSCHED_BASE_URL: base } });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Tried ${base}/public/v1/subscription/${sim.options.subscriptionId}/public/certificate/test.`,
    );
    expect(result.stderr).toContain("Check CERTSCHED_BASE_URL");
  });

  it("a refused API key names CERTSCHED_API_KEY; an unknown subscription id names CERTSCHED_SUBSCRIPTION_ID", async () => {
    sim = await startSimulator({ certificates: certificates() });

    const key = await cliAgainst(sim, ["renew", "www-contoso-com"], {
      env: { CERTSCHED_API_KEY: "wrong-api-key-1234" },
    });
    const id = await cliAgainst(sim, ["due"], { env: { CERTSCHED_SUBSCRIPTION_ID: "999999" } });

    expect(key.code).toBe(1);
    expect(key.stderr).toContain("Check CERTSCHED_API_KEY: the service refused the API key.");
    expect(key.stderr).not.toContain("wrong-api-key-1234");
    expect(id.code).toBe(1);
    expect(id.stderr).toContain("Check CERTSCHED_SUBSCRIPTION_ID");
  });

  it("a sweep whose list is refused for the subscription id names CERTSCHED_SUBSCRIPTION_ID (exit 1)", async () => {
    sim = await startSimulator({ certificates: certificates() });

    const result = await cliAgainst(sim, ["sweep"], {
      env: { CERTSCHED_SUBSCRIPTION_ID: "999999" },
    });

    expect(result.code).toBe(1);
    expect(result.stdout).toContain("The list of certificates due failed");
    expect(result.stdout).toContain("  401: Authorization failed: unknown subscription id");
    expect(result.stdout).toContain("Check CERTSCHED_SUBSCRIPTION_ID");
  });

  it("sandbox --port in use says the port is in use (exit 1)", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const result = await runCli(["sandbox", "--port", String(port)]);

      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`port ${port} is already in use`);
      expect(result.stderr).not.toContain("unexpected error");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the basics", () => {
  it("--version prints the package's version (exit 0)", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
      version: string;
    };

    const result = await runCli(["--version"]);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`certsched ${pkg.version}\n`);
  });

  it("did-you-mean for commands and flags; create file.json hints at --file (exit 2)", async () => {
    const command = await runCli(["swep"]);
    const flag = await runCli(["sweep", "--dryrun"]);
    const create = await runCli(["create", "request.json"]);

    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "swep": did you mean "sweep"?');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--dryrun': did you mean --dry-run?");
    expect(create.code).toBe(2);
    expect(create.stderr).toContain("certsched create --file request.json");
  });

  it("every help text fits 80 columns", async () => {
    for (const args of [
      ["--help"],
      // Every registered command, so one added later is held to it too.
      ...COMMANDS.map((c) => [c.name, "--help"]),
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      expectFits(result.stdout.split("\n"), 80);
    }
  });

  it("completion bash completes commands and flags in bash; zsh registers with compdef", async () => {
    const bash = await runCli(["completion", "bash"]);
    const zsh = await runCli(["completion", "zsh"]);
    const none = await runCli(["completion", "fish"]);

    expect(bash.code).toBe(0);
    const complete = (line: string) => {
      const words = line.split(" ");
      const script = `${bash.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _certsched; echo "\${COMPREPLY[*]}"`;
      return spawnSync("/usr/bin/bash", ["-c", script], { encoding: "utf8" }).stdout.trim();
    };
    expect(complete("certsched sw")).toBe("sweep");
    expect(complete("certsched sweep --dr")).toBe("--dry-run");
    expect(complete("certsched test --w")).toBe("--wait");
    expect(complete("certsched wi")).toBe("windows");
    expect(complete("certsched windows --d")).toBe("--days");
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toContain("compdef _certsched certsched");
    expect(zsh.stdout).toContain("sweep) flags=(--json --dry-run");
    expect(none.code).toBe(2);
  });

  it("test --wait retries until the service answers (exit 0), and gives up when it never does (exit 1)", async () => {
    // The simulator's settings for a fixed port, then the simulator gone: nothing answers there.
    const port = await closedPort();
    sim = await startSimulator({ port });
    const env = sandboxSettings(sim);
    await sim.close();
    // The simulator comes back once certsched has said it is still waiting: no timing guess.
    const waiting = spawn(process.execPath, [CLI, "test", "--wait", "30s"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    let stdout = "";
    let stderr = "";
    waiting.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const toldWaiting = new Promise<void>((resolve) => {
      waiting.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        if (stderr.includes("no answer yet")) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => waiting.on("close", resolve));
    await Promise.race([toldWaiting, exited]);
    sim = await startSimulator({ port });
    const answered = { code: await exited, stdout, stderr };

    const elsewhere = `http://127.0.0.1:${await closedPort()}`;
    const never = await runCli(["test", "--wait", "2s"], {
      env: { ...env, CERTSCHED_BASE_URL: elsewhere, CERTSCHED_TOKEN_URL: `${elsewhere}/identity` },
    });

    expect(answered.code).toBe(0);
    expect(answered.stderr).toContain("no answer yet");
    expect(answered.stdout).toContain("Connected to");
    expect(never.code).toBe(1);
    expect(never.stderr).toContain("giving up");
  }, 60_000);
});

/** A port nothing listens on (bound then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
