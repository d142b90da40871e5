import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { build } from "esbuild";
import type { LogLine } from "./app.js";
import { ROOT } from "./cliBuild.js";

/**
 * Worker processes running the test host loop (hostWorker.ts) over Azurite, as Functions
 * instances would: started, killed with SIGKILL mid-batch, started again.
 */

const BUNDLE = join(ROOT, "dist", "test", "hostWorker.mjs");
let bundled: Promise<unknown> | undefined;

/** Bundles hostWorker.ts (packages stay external, found in node_modules), once per test file. */
function bundle(): Promise<unknown> {
  bundled ??= build({
    entryPoints: [join(ROOT, "test", "support", "hostWorker.ts")],
    outfile: BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Packages stay in node_modules, except @azure/functions: CommonJS, whose named exports an
    // ES module cannot import from outside a bundle.
    packages: "external",
    plugins: [
      {
        name: "bundle-functions",
        setup(b) {
          b.onResolve({ filter: /^@azure\/functions$/ }, () => ({
            path: join(ROOT, "node_modules", "@azure", "functions", "dist", "azure-functions.js"),
          }));
        },
      },
    ],
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    logLevel: "silent",
  });
  return bundled;
}

export interface WorkerSettings {
  readonly env: Record<string, string>;
  readonly connectionString: string;
  readonly queueName: string;
  readonly runsTableName: string;
  /** Seconds a message stays leased to this worker (how soon a killed worker's come back). */
  readonly leaseSeconds: number;
}

export interface Worker {
  readonly process: ChildProcess;
  /** Messages whose handling began (their text as the handler got it). */
  readonly started: unknown[];
  /** Every line the handlers logged. */
  readonly logs: LogLine[];
  /** Everything written to stderr. */
  readonly stderr: string[];
  /** Kills the process at once (SIGKILL: no cleanup, no lease released) and waits for it. */
  kill(): Promise<void>;
}

export async function startWorker(settings: WorkerSettings): Promise<Worker> {
  await bundle();
  const child = spawn(process.execPath, [BUNDLE], {
    cwd: ROOT,
    env: { ...process.env, HOST_WORKER: JSON.stringify(settings) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const started: unknown[] = [];
  const logs: LogLine[] = [];
  const stderr: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")));
  const ready = new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`worker exited (${code}): ${stderr.join("")}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      let parsed: { ready?: number; start?: unknown; log?: LogLine };
      try {
        parsed = JSON.parse(line);
      } catch {
        return;
      }
      if (parsed.ready) resolve();
      if (parsed.start !== undefined) started.push(parsed.start);
      if (parsed.log) logs.push(parsed.log);
    });
  });
  await ready;
  return {
    process: child,
    started,
    logs,
    stderr,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
