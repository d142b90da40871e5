import { loadSettings } from "../shared/app/config/settings.js";
import { createAccountPorts } from "../shared/app/services.js";
import { memoryLedger } from "../shared/core/ports/ledger.js";
import { silentLogger } from "../shared/lib/log.js";
import { sweep } from "../shared/usecases/sweep/sweep.js";
import { type Simulator, sandboxSettings, startSimulator } from "../sim/index.js";
import { dueCertificates } from "./dueCertificates.js";
import type { Gate, Section } from "./report.js";
import { sequentialBaseline } from "./sequentialBaseline.js";
import { formatMs, formatRatio, mean, median } from "./stats.js";

export interface SweepBenchOptions {
  /** Numbers of due certificates, one table block each. */
  readonly sizes: readonly number[];
  /** Runs of each side per size, interleaved (baseline, sweep, baseline, sweep, ...). */
  readonly rounds: number;
  /** Real-time latency the simulator adds to every service response, ms. */
  readonly latencyMs: number;
  /** Above this many certificates the baseline renews only the first ones and extrapolates. */
  readonly baselineSample: number;
  readonly progress: (line: string) => void;
}

interface SizeResult {
  readonly n: number;
  readonly concurrency: number;
  readonly sweepMs: number[];
  readonly sweepTokens: number[];
  readonly baselineMs: number[];
  readonly baselineTokens: number[];
  /** Renewals the baseline actually made per run. */
  readonly baselineRenewed: number;
}

async function withSimulator<T>(
  n: number,
  latencyMs: number,
  work: (sim: Simulator) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator({ latencyMs, certificates: dueCertificates(n, new Date()) });
  try {
    return await work(sim);
  } finally {
    await sim.close();
  }
}

/** One sweep as the timer runs it: fresh runtime (empty token cache), default concurrency. */
async function timedSweep(n: number, latencyMs: number) {
  return withSimulator(n, latencyMs, async (sim) => {
    const runtime = createAccountPorts(loadSettings(sandboxSettings(sim)));
    try {
      const started = performance.now();
      // A fixed width (CERTSCHED_RENEWAL_CONCURRENCY), a fresh ledger: the renewals alone.
      const ports = { ...runtime, ledger: memoryLedger() };
      const summary = await sweep(ports, silentLogger, {
        concurrency: runtime.settings.renewalConcurrency,
        dryRun: false,
        trigger: "cli",
      });
      const ms = performance.now() - started;
      const scheduled = summary.counts["renewal-scheduled"];
      const renewCalls = sim.requestsFor("publicRenew").length;
      if (summary.failed || scheduled !== n || renewCalls !== n) {
        throw new Error(
          `sweep of ${n} went wrong: ${scheduled} scheduled, ${renewCalls} renew calls, problems: ${summary.problems.join("; ")}`,
        );
      }
      return {
        ms,
        tokens: sim.requestsFor("token").length,
        concurrency: runtime.settings.renewalConcurrency,
      };
    } finally {
      await runtime.close();
    }
  });
}

/** The reference client's way; beyond `sample` certificates, per-renewal time extrapolated. */
async function timedBaseline(n: number, latencyMs: number, sample: number) {
  return withSimulator(n, latencyMs, async (sim) => {
    const limit = n > sample ? sample : undefined;
    const run = await sequentialBaseline(loadSettings(sandboxSettings(sim)), limit);
    const renewed = run.renewMs.length;
    const tokens = sim.requestsFor("token").length;
    if (run.listed !== n || tokens !== 2 + 2 * renewed) {
      throw new Error(
        `baseline of ${n} went wrong: listed ${run.listed}, ${tokens} token requests for ${renewed} renewals`,
      );
    }
    const ms = limit === undefined ? run.totalMs : run.listMs + mean(run.renewMs) * n;
    return { ms, renewed, tokens: 2 + 2 * n };
  });
}

async function measureSize(n: number, options: SweepBenchOptions): Promise<SizeResult> {
  const sweepMs: number[] = [];
  const sweepTokens: number[] = [];
  const baselineMs: number[] = [];
  const baselineTokens: number[] = [];
  let concurrency = 0;
  let baselineRenewed = 0;
  for (let round = 1; round <= options.rounds; round++) {
    const base = await timedBaseline(n, options.latencyMs, options.baselineSample);
    baselineMs.push(base.ms);
    baselineTokens.push(base.tokens);
    baselineRenewed = base.renewed;
    const sweep = await timedSweep(n, options.latencyMs);
    sweepMs.push(sweep.ms);
    sweepTokens.push(sweep.tokens);
    concurrency = sweep.concurrency;
    options.progress(
      `sweep N=${n} round ${round}/${options.rounds}: baseline ${formatMs(base.ms)}${
        base.renewed < n ? ` (extrapolated from ${base.renewed})` : ""
      }, sweep ${formatMs(sweep.ms)}, ${sweep.tokens} token requests`,
    );
  }
  return { n, concurrency, sweepMs, sweepTokens, baselineMs, baselineTokens, baselineRenewed };
}

/** Section 1: sweep wall time, speed-up over the reference client's way, token economy. */
export async function sweepBench(
  options: SweepBenchOptions,
): Promise<{ section: Section; gates: Gate[] }> {
  const rows: Section["rows"][number][] = [];
  const gates: Gate[] = [];
  const notes: string[] = [];
  for (const n of options.sizes) {
    const r = await measureSize(n, options);
    const sweep = median(r.sweepMs);
    const baseline = median(r.baselineMs);
    const speedUp = baseline / sweep;
    const maxTokens = Math.max(...r.sweepTokens);
    const extrapolated = r.baselineRenewed < n;
    const baselineLabel = extrapolated
      ? `Sequential baseline, N=${n} (EXTRAPOLATED: first ${r.baselineRenewed} renewals measured, mean per-renewal time x ${n} + list time)`
      : `Sequential baseline, N=${n} (measured in full)`;
    rows.push(
      {
        measure: `Sweep wall time, N=${n}, concurrency ${r.concurrency}`,
        value: `${formatMs(sweep)} (runs: ${r.sweepMs.map(formatMs).join(", ")})`,
      },
      {
        measure: baselineLabel,
        value: `${formatMs(baseline)} (runs: ${r.baselineMs.map(formatMs).join(", ")})`,
      },
      {
        measure: `Speed-up vs sequential, N=${n}${extrapolated ? " (vs extrapolated baseline)" : ""}`,
        value: formatRatio(speedUp),
        goal: `>= ${formatRatio(0.85 * r.concurrency)} (0.85 x ${r.concurrency})`,
        met: speedUp >= 0.85 * r.concurrency,
      },
      {
        measure: `Token requests per sweep, N=${n}`,
        value: `${maxTokens} (every run: ${r.sweepTokens.join(", ")}); baseline ${r.baselineTokens[0]}`,
        goal: "exactly 2",
        met: r.sweepTokens.every((t) => t === 2),
      },
    );
    gates.push(
      {
        name: `token requests per sweep, N=${n}`,
        ok: maxTokens <= 2,
        detail: `at most 2 allowed; runs made ${r.sweepTokens.join(", ")}`,
      },
      {
        name: `speed-up, N=${n}`,
        ok: speedUp >= 0.8 * r.concurrency,
        detail: `${formatRatio(speedUp)}; at least ${formatRatio(0.8 * r.concurrency)} (0.8 x concurrency ${r.concurrency}) required`,
      },
    );
  }
  notes.push(
    `Each run starts its own simulator (startSimulator, latencyMs ${options.latencyMs}: every service response is delayed ${options.latencyMs} ms of real time; token responses are not), seeded with N due certificates (both targets).`,
    'Sweep: the sweep (sweep(), fixed width) with a fresh runtime (createAccountPorts(loadSettings(sandboxSettings(sim))), so an empty token cache), memoryLedger, silentLogger and the default CERTSCHED_RENEWAL_CONCURRENCY; wall time from the list call to the summary. Token requests are counted on the wire (sim.requestsFor("token")).',
    "Sequential baseline (the service's reference client): a new TokenCache for every call, so a token pair per call (2 + 2N token requests), one renewal at a time, over the same HttpClient, client-credentials flow and ServiceClient.",
    `Above ${options.baselineSample} certificates the baseline renews only the first ${options.baselineSample} of the listed N and is extrapolated as list time + mean renewal time x N; the table says so on that line. Baseline and sweep runs alternate, ${options.rounds} of each per N; values are medians.`,
  );
  return { section: { title: "Renewal sweep", rows, notes }, gates };
}
