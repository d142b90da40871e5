import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The built CLI: the children run what users run (package.json `bin`), not the sources. */
export const CLI = join(ROOT, "dist", "bin", "certsched.js");
/** The tsc output the bundle is made from, one file per module (what startImports reads). */
export const CLI_TSC = join(ROOT, "dist", "cli", "main.js");
export const START = join(ROOT, "scripts", "start.mjs");

// Test files run in parallel workers; one build at a time, the others wait and find it fresh.
const LOCK = join(
  tmpdir(),
  `certsched-build-${createHash("sha256").update(ROOT).digest("hex").slice(0, 12)}.lock`,
);
const STALE_LOCK_MS = 60_000;

async function acquireLock(): Promise<void> {
  for (;;) {
    try {
      await mkdir(LOCK);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = await stat(LOCK).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      // A worker killed mid-build leaves its lock behind.
      if (age > STALE_LOCK_MS) await rm(LOCK, { recursive: true, force: true });
      else await sleep(100);
    }
  }
}

let built: Promise<void> | undefined;

/**
 * Builds dist/ when it is missing or older than the sources, through `npm start`'s own
 * check (scripts/start.mjs --build-only), so that path is exercised too.
 */
export function ensureBuilt(): Promise<void> {
  built ??= (async () => {
    await acquireLock();
    try {
      const result = spawnSync(process.execPath, [START, "--build-only"], {
        cwd: ROOT,
        encoding: "utf8",
      });
      if (result.status !== 0) {
        throw new Error(`build failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
      }
    } finally {
      await rm(LOCK, { recursive: true, force: true });
    }
  })();
  return built;
}

export interface ChildResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ChildOptions {
  /** The child's whole environment besides PATH: nothing leaks in from the test process. */
  readonly env?: Record<string, string>;
  readonly cwd?: string;
}

/** Runs a script under node as a child process and collects its output. */
export function runNode(
  script: string,
  args: readonly string[],
  options: ChildOptions = {},
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? "", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** `certsched <args>` from the build. */
export function runCli(args: readonly string[], options: ChildOptions = {}): Promise<ChildResult> {
  return runNode(CLI, args, options);
}
