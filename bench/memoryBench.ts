import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { loadSettings } from "../shared/app/config/settings.js";
import { createAccountPorts } from "../shared/app/services.js";
import type { UpstreamName } from "../shared/lib/errors.js";
import { MAX_RESPONSE_BYTES } from "../shared/lib/http/attempt.js";
import { type Simulator, sandboxSettings, startSimulator } from "../sim/index.js";
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

/** Half of the smallest instanceMemoryMB infra/main.bicep allows (512): the cap must fit in it. */
export const CAP_RSS_GOAL_MB = 256;

/**
 * A list body of at most `bytes` made of the smallest records the schema accepts: the worst case
 * for memory per byte (every absent field still becomes a property of the validated record).
 */
export function listAtCap(bytes: number, now: Date): { body: string; count: number } {
  const expiry = new Date(now.getTime() + 10 * 86_400_000).toISOString().replace("Z", "0000");
  const parts: string[] = [];
  let size = 2;
  for (let i = 1; ; i++) {
    const record = `{"certificateName":"c${i}","issueDate":"2026-01-01T00:00:00.0000000","expiryDate":"${expiry}","target":"Cloud App Service","renewal":"Automatic","id":${i},"subscriptionId":1001}`;
    const added = record.length + (parts.length > 0 ? 1 : 0);
    if (size + added > bytes) break;
    parts.push(record);
    size += added;
  }
  return { body: `[${parts.join(",")}]`, count: parts.length };
}

/** Section 4: peak RSS and time to list (parse and validate) many due certificates. */
export async function memoryBench(options: MemoryBenchOptions): Promise<Section> {
  const sim = await startSimulator({
    latencyMs: 0,
    certificates: dueCertificates(options.certificates, new Date()),
  });
  const results: MemoryChildResult[] = [];
  let atCap: { results: MemoryChildResult[]; count: number; bytes: number };
  let noneDue: { calls: readonly UpstreamName[]; ms: number; listOnlyMs: number };
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
    atCap = await capRuns(options, sim);
    noneDue = await noneDueCost(options);
  } finally {
    await sim.close();
  }
  const peak = Math.max(...results.map((r) => r.peakRssMiB));
  const capPeak = Math.max(...atCap.results.map((r) => r.peakRssMiB));
  const capMB = capPeak * 1.048576;
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
      {
        measure: `Peak RSS at the list's size cap (${(atCap.bytes / 1048576).toFixed(1)} MiB of JSON, ${atCap.count.toLocaleString("en-US")} smallest valid records; worst of ${options.runs} processes)`,
        value: `${capPeak.toFixed(1)} MiB (${capMB.toFixed(1)} MB)`,
        goal: `< ${CAP_RSS_GOAL_MB} MB (half of the smallest instanceMemoryMB, 512)`,
        met: capMB < CAP_RSS_GOAL_MB,
      },
      {
        measure: "listDue() time at the cap (call + JSON.parse + validation)",
        value: formatMs(median(atCap.results.map((r) => r.listMs))),
      },
      {
        measure: "Service calls when the list answers 404 (nothing due)",
        value: `${noneDue.calls.length} (${noneDue.calls.join(", ")}): the connectivity test confirms the address before the 404 is believed`,
      },
      {
        measure: "listDue() time when nothing is due: list 404 + confirming test (tokens cached)",
        value: `${formatMs(noneDue.ms)} (the list call alone: ${formatMs(noneDue.listOnlyMs)})`,
      },
    ],
    notes: [
      `Each run is a fresh \`node\` process (bench/memoryChild.ts) that builds the runtime from sandbox settings and fetches the two tokens, then calls client.listDue() once against a simulator (no added latency, in the parent process) seeded with ${n} due certificates: the list call, JSON.parse and per-record zod validation (shared/adapters/service/responses.ts dueList). Peak RSS is the child's getrusage maxrss, so the simulator's memory is not in it; the child gets PATH and the sandbox settings only (NODE_EXTRA_CA_CERTS, for one, costs tens of MiB). Times are medians of ${options.runs} runs.`,
      `At the cap: the same child, the simulator answering the list with one JSON body just under MAX_RESPONSE_BYTES (shared/lib/http/httpClient.ts, ${MAX_RESPONSE_BYTES / 1048576} MiB) of the smallest records the schema accepts (about 170 bytes each; every absent field still becomes a property of the validated record, so this is the most memory per byte). A 64 MiB cap let a 336,000-record list take 784 MB of heap; the cap is set so this peak stays under half of a 512 MB instance.`,
      `Nothing due: a runtime in this process against a simulator with no certificates (its list answers 404). A 404 is believed only after the connectivity test under the same CERTSCHED_PUBLIC_BASE_URL answers 200, since a mistyped address answers 404 too; that one extra call is paid only when the list says 404. Median of ${NONE_DUE_SAMPLES} calls after a warm-up call.`,
    ],
  };
}

const NONE_DUE_SAMPLES = 20;

/** Children listing a body at the size cap, served by the simulator in place of its list. */
async function capRuns(
  options: MemoryBenchOptions,
  sim: Simulator,
): Promise<{ results: MemoryChildResult[]; count: number; bytes: number }> {
  const { body, count } = listAtCap(MAX_RESPONSE_BYTES - 1024, new Date());
  const results: MemoryChildResult[] = [];
  for (let run = 0; run < options.runs; run++) {
    sim.inject("list", {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8" },
      body,
    });
    const result = await runChild(options.childScript, childEnv(sandboxSettings(sim)));
    if (result.certificates !== count || result.rejected !== 0) {
      throw new Error(
        `memory child listed ${result.certificates} (${result.rejected} rejected) at the cap, expected ${count}`,
      );
    }
    results.push(result);
    options.progress(
      `memory: at the cap, run ${run + 1}/${options.runs}: peak RSS ${result.peakRssMiB.toFixed(1)} MiB`,
    );
  }
  return { results, count, bytes: Buffer.byteLength(body) };
}

/** What listing costs when nothing is due: which calls, and how long (tokens cached). */
async function noneDueCost(
  options: MemoryBenchOptions,
): Promise<{ calls: readonly UpstreamName[]; ms: number; listOnlyMs: number }> {
  const sim = await startSimulator({ latencyMs: 0, certificates: [] });
  const calls: { upstream: UpstreamName; ms: number }[] = [];
  const runtime = createAccountPorts(loadSettings(sandboxSettings(sim)), {
    onCall: (upstream, ms) => calls.push({ upstream, ms }),
  });
  try {
    await runtime.client.listDue();
    const firstCalls = calls.filter((c) => c.upstream !== "token").map((c) => c.upstream);
    const times: number[] = [];
    const listTimes: number[] = [];
    for (let i = 0; i < NONE_DUE_SAMPLES; i++) {
      calls.length = 0;
      const t0 = performance.now();
      const due = await runtime.client.listDue();
      times.push(performance.now() - t0);
      listTimes.push(calls.find((c) => c.upstream === "list")?.ms ?? Number.NaN);
      if (due.certificates.length !== 0) throw new Error("the empty simulator listed certificates");
    }
    options.progress(`memory: nothing due costs ${firstCalls.join(" + ")}`);
    return { calls: firstCalls, ms: median(times), listOnlyMs: median(listTimes) };
  } finally {
    await runtime.close();
    await sim.close();
  }
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
