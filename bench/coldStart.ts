import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import type { Section } from "./report.js";
import { formatMs, formatRatio, interleaved, median } from "./stats.js";

/** Something a fresh `node` process can load: bare specifiers or absolute file paths. */
export interface LoadVariant {
  readonly key: string;
  readonly label: string;
  readonly modules: readonly string[];
  /** Settings of each sample's process beyond PATH (asked anew for every sample). */
  readonly env?: () => Record<string, string>;
}

export interface ColdStartOptions {
  readonly root: string;
  /** Compared against `bare`; the one `deployed` names is what the goal is about. */
  readonly variants: readonly LoadVariant[];
  readonly bare: LoadVariant;
  /** Measured alongside for context; no goal. */
  readonly references: readonly LoadVariant[];
  /** Key of the variant package.json "main" deploys. */
  readonly deployed: string;
  readonly rounds: number;
  readonly warmupRounds: number;
  /** Lines describing what is on the load path (from the bundle's metafile). */
  readonly loadPath: readonly string[];
  readonly progress: (line: string) => void;
  /** The node binary to measure with (default: this process's); Azure runs Node 22. */
  readonly nodePath?: string;
  /** Section title (default "Cold start"). */
  readonly title?: string;
}

/** The child: imports each module in turn, as the worker loads "main", and prints the time. */
const PROBE = `const started = performance.now();
for (const target of process.argv.slice(1)) await import(target);
process.stdout.write(JSON.stringify({ importMs: performance.now() - started }));`;

interface Sample {
  readonly importMs: number;
  readonly processMs: number;
}

function specifier(module: string): string {
  return module.startsWith("/") ? pathToFileURL(module).href : module;
}

/** One fresh process: time to import (inside) and the whole process, spawn to exit (outside). */
function loadOnce(root: string, variant: LoadVariant, nodePath: string): Sample {
  const started = performance.now();
  const child = spawnSync(
    nodePath,
    ["--input-type=module", "-e", PROBE, ...variant.modules.map(specifier)],
    // Outside the Functions host @azure/functions warns that it runs in test mode: expected.
    { cwd: root, encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...variant.env?.() } },
  );
  const processMs = performance.now() - started;
  if (child.status !== 0) {
    throw new Error(`loading ${variant.label} failed (exit ${child.status}): ${child.stderr}`);
  }
  const { importMs } = JSON.parse(child.stdout) as { importMs: number };
  return { importMs, processMs };
}

/** Section 2: load time of the function app's entry modules against bare @azure/functions. */
export async function coldStartBench(options: ColdStartOptions): Promise<Section> {
  const all = [options.bare, ...options.references, ...options.variants];
  const byKey = new Map(all.map((v) => [v.key, v]));
  const keys = all.map((v) => v.key);
  const nodePath = options.nodePath ?? process.execPath;
  for (let i = 0; i < options.warmupRounds; i++) {
    for (const v of all) loadOnce(options.root, v, nodePath);
  }
  const processMs = new Map<string, number[]>(keys.map((k) => [k, []]));
  const importMs = await interleaved(keys, options.rounds, (key, round) => {
    const sample = loadOnce(options.root, byKey.get(key) as LoadVariant, nodePath);
    processMs.get(key)?.push(sample.processMs);
    if (key === keys[keys.length - 1] && (round + 1) % 5 === 0) {
      options.progress(`cold start: ${round + 1}/${options.rounds} interleaved rounds`);
    }
    return sample.importMs;
  });
  const bareImport = median(importMs[options.bare.key] ?? []);
  const bareProcess = median(processMs.get(options.bare.key) ?? []);
  const rows: Section["rows"][number][] = [
    {
      measure: `${options.bare.label}: import time (whole process)`,
      value: `${formatMs(bareImport)} (${formatMs(bareProcess)})`,
    },
  ];
  for (const v of options.references) {
    const imp = median(importMs[v.key] ?? []);
    const proc = median(processMs.get(v.key) ?? []);
    rows.push({
      measure: `${v.label}: import time (whole process)`,
      value: `${formatMs(imp)} (${formatMs(proc)}); ${formatRatio(imp / bareImport)} of bare`,
    });
  }
  for (const v of options.variants) {
    const imp = median(importMs[v.key] ?? []);
    const proc = median(processMs.get(v.key) ?? []);
    const ratio = imp / bareImport;
    const deployed = v.key === options.deployed;
    rows.push(
      {
        measure: `${v.label}${deployed ? " [deployed: package.json main]" : ""}: import time (whole process)`,
        value: `${formatMs(imp)} (${formatMs(proc)})`,
      },
      {
        measure: `${v.label}${deployed ? " [deployed]" : ""}: ratio to bare @azure/functions, import time (whole process)`,
        value: `${formatRatio(ratio)} (${formatRatio(proc / bareProcess)})`,
        goal: "<= 1.30x (import time)",
        met: ratio <= 1.3,
      },
    );
  }
  const notes = [
    `Each sample is a fresh \`node --input-type=module -e ...\` process (cwd = the project, empty environment but PATH) that takes performance.now(), imports the modules one after another as the worker loads "main", and prints the elapsed time: that is the import time. The whole process (spawn to exit, Node's own start-up included) is timed outside with spawnSync and shown in brackets.`,
    `${options.rounds} rounds, the variants interleaved round-robin after ${options.warmupRounds} warm-up round(s) (file-system cache); values are medians. The goal applies to the import time of the deployed artefact.`,
    'Outside the Functions host @azure/functions switches to "test mode" (a warning; registrations are skipped), so the host-side registration is not in these figures.',
    ...options.loadPath,
  ];
  return { title: options.title ?? "Cold start", rows, notes };
}
