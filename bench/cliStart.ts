import { spawnSync } from "node:child_process";
import path from "node:path";
import type { Section } from "./report.js";
import { formatMs, formatRatio, interleaved, median } from "./stats.js";

export interface CliStartOptions {
  readonly root: string;
  readonly rounds: number;
  readonly warmupRounds: number;
  readonly progress: (line: string) => void;
}

/** One fresh process, spawn to exit, in ms; throws if it fails, so a broken CLI never scores. */
function once(root: string, args: readonly string[]): number {
  const started = performance.now();
  const child = spawnSync(process.execPath, args, {
    cwd: root,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
  });
  const ms = performance.now() - started;
  if (child.status !== 0)
    throw new Error(`node ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  return ms;
}

/**
 * `certsched --version` against `node -e 0`: what the CLI adds to Node's own start-up. The CLI
 * loads its commands lazily (cli/registry.ts), so this is the floor every command starts from.
 */
export async function cliStartBench(options: CliStartOptions): Promise<Section> {
  const cli = path.join(options.root, "dist", "bin", "certsched.js");
  const variants = {
    node: ["-e", "0"],
    version: [cli, "--version"],
  } as const;
  const keys = ["node", "version"] as const;
  for (let i = 0; i < options.warmupRounds; i++) {
    for (const key of keys) once(options.root, variants[key]);
  }
  const samples = await interleaved(keys, options.rounds, (key, round) => {
    if (key === "version" && (round + 1) % 10 === 0) {
      options.progress(`cli start: ${round + 1}/${options.rounds} interleaved rounds`);
    }
    return once(options.root, variants[key]);
  });
  const node = median(samples.node);
  const version = median(samples.version);
  const ratio = version / node;
  return {
    title: "CLI start-up",
    rows: [
      { measure: "`node -e 0` (whole process)", value: formatMs(node) },
      { measure: "`certsched --version` (whole process)", value: formatMs(version) },
      {
        measure: "`certsched --version` : `node -e 0`",
        value: formatRatio(ratio),
        goal: "<= 3.00x",
        met: ratio <= 3,
      },
    ],
    notes: [
      `Each sample is a fresh process, spawn to exit, timed with spawnSync (cwd = the project, empty environment but PATH); ${options.rounds} rounds interleaved after ${options.warmupRounds} warm-up round(s); medians.`,
      "certsched runs as package.json `bin` ships it: the esbuild bundle dist/bin/certsched.js (scripts/bundle.mjs, bundleCli), whose commands are chunks loaded on first use. Only the command that runs is imported (cli/registry.ts): --version, --help and a mistyped command load no HTTP client, zod or Azure SDK.",
    ],
  };
}
