import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { sandboxSettings, startSimulator } from "../sim/index.js";
import { dueCertificates } from "./dueCertificates.js";
import { childEnv } from "./isolation.js";
import type { MemoryChildResult } from "./memoryChild.js";
import type { Section } from "./report.js";
import { formatMs, median } from "./stats.js";

export interface MemoryBenchOptions {
  /** The compiled bench/memoryChild.ts. */
  readonly childScript: string;
  readonly certificates: number;
  /** Fresh child processes, one listing each. */
  readonly runs: number;
  readonly progress: (line: string) => void;
}

/** Section 4: peak RSS and time to list (parse and validate) many due certificates. */
export async function memoryBench(options: MemoryBenchOptions): Promise<Section> {
  const sim = await startSimulator({
    latencyMs: 0,
    certificates: dueCertificates(options.certificates, new Date()),
  });
  const results: MemoryChildResult[] = [];
  try {
    for (let run = 0; run < options.runs; run++) {
      // Asynchronous spawn: the simulator answering the child lives in this process.
      const result = await runChild(options.childScript, childEnv(sandboxSettings(sim)));
      if (result.certificates !== options.certificates || result.rejected !== 0) {
        throw new Error(
          `memory child listed ${result.certificates} (${result.rejected} rejected), expected ${options.certificates}`,
        );
      }
      results.push(result);
      options.progress(
        `memory: run ${run + 1}/${options.runs}: peak RSS ${result.peakRssMiB.toFixed(1)} MiB, list ${formatMs(result.listMs)}`,
      );
    }
  } finally {
    await sim.close();
  }
  const peak = Math.max(...results.map((r) => r.peakRssMiB));
  const mid = (pick: (r: MemoryChildResult) => number) => median(results.map(pick));
  const n = options.certificates.toLocaleString("en-US");
  return {
    title: `Memory: listing ${n} certificates`,
    rows: [
      {
        measure: `Peak RSS, listing ${n} certificates (worst of ${options.runs} processes)`,
        value: `${peak.toFixed(1)} MiB (${(peak * 1.048576).toFixed(1)} MB)`,
        goal: "< 150 MB",
        met: peak * 1.048576 < 150,
      },
      {
        measure: "RSS at start (modules loaded, runtime built, nothing sent)",
        value: `${mid((r) => r.rssStartMiB).toFixed(1)} MiB`,
      },
      {
        measure: "RSS after the two token requests (undici loaded, connection open)",
        value: `${mid((r) => r.rssReadyMiB).toFixed(1)} MiB`,
      },
      {
        measure: `Listing ${n} adds (peak minus the line above)`,
        value: `${mid((r) => r.peakRssMiB - r.rssReadyMiB).toFixed(1)} MiB`,
      },
      {
        measure: `listDue() time, ${n} certificates (call + JSON.parse + validation; tokens cached)`,
        value: formatMs(mid((r) => r.listMs)),
      },
      {
        measure: "of which the list call (send to body read, simulator serialising included)",
        value: formatMs(mid((r) => r.listCallMs)),
      },
    ],
    notes: [
      `Each run is a fresh \`node\` process (bench/memoryChild.ts) that builds the runtime from sandbox settings and fetches the two tokens, then calls client.listDue() once against a simulator (no added latency, in the parent process) seeded with ${n} due certificates: the list call, JSON.parse and per-record zod validation (shared/service/responses.ts dueList). Peak RSS is the child's getrusage maxrss, so the simulator's memory is not in it; the child gets PATH and the sandbox settings only (NODE_EXTRA_CA_CERTS, for one, costs tens of MiB). Times are medians of ${options.runs} runs.`,
    ],
  };
}

async function runChild(script: string, env: Record<string, string>): Promise<MemoryChildResult> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [script], {
      env,
      encoding: "utf8",
    });
    return JSON.parse(stdout) as MemoryChildResult;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`memory child failed: ${(error as Error).message}\n${stderr}`);
  }
}
