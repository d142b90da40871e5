import { loadSettings } from "../shared/app/config/settings.js";
import { createAccountPorts } from "../shared/app/services.js";
import type { ConcurrencyControl } from "../shared/core/ports/concurrency.js";
import { memoryLedger } from "../shared/core/ports/ledger.js";
import { silentLogger } from "../shared/lib/log.js";
import { sweep } from "../shared/usecases/sweep/sweep.js";
import {
  meanInFlight,
  type RateLimitStats,
  sandboxSettings,
  startSimulator,
} from "../sim/index.js";
import { dueCertificates } from "./dueCertificates.js";
import type { Gate, Section } from "./report.js";
import { formatMs, median } from "./stats.js";

export interface RateLimitBenchOptions {
  /** Due certificates per run. */
  readonly certificates: number;
  /** The simulator's capacity: requests in flight above it are answered 429. */
  readonly capacity: number;
  /** The 429's Retry-After, seconds. */
  readonly retryAfterSeconds: number;
  /** Real-time latency of every service response, ms. */
  readonly latencyMs: number;
  /** CERTSCHED_RENEWAL_CONCURRENCY (where the limit starts) and _MAX (the most it grows to). */
  readonly start: number;
  readonly cap: number;
  readonly runs: number;
  readonly progress: (line: string) => void;
}

/** One run's figures. */
export interface RateLimitRun {
  readonly ms: number;
  readonly scheduled: number;
  readonly failed: number;
  /** Certificates the service renewed more than once (must be none). */
  readonly doubled: number;
  readonly throttled: number;
  readonly peakInFlight: number;
  /** Mean requests in flight at the service / capacity, over the whole sweep. */
  readonly utilisation: number;
  /**
   * The same from the moment the limit first reached the capacity until fewer renewals were left
   * than the capacity (while there was more to send than the service takes).
   */
  readonly steadyUtilisation: number;
  /** ms from the start until the limit first reached the capacity. */
  readonly reachedAfterMs: number | undefined;
  readonly limits: { readonly min: number; readonly max: number; readonly final: number };
}

/** One sweep over a rate-limited simulator, the limit adapting from `start`. */
export async function rateLimitedSweep(options: RateLimitBenchOptions): Promise<RateLimitRun> {
  const sim = await startSimulator({
    latencyMs: options.latencyMs,
    rateLimit: { capacity: options.capacity, retryAfterSeconds: options.retryAfterSeconds },
    certificates: dueCertificates(options.certificates, new Date()),
  });
  const runtime = createAccountPorts(
    loadSettings({
      ...sandboxSettings(sim),
      CERTSCHED_RENEWAL_CONCURRENCY: String(options.start),
      CERTSCHED_RENEWAL_CONCURRENCY_MAX: String(options.cap),
    }),
  );
  try {
    const control = runtime.concurrency;
    let reached: { at: number; stats: RateLimitStats } | undefined;
    const widths: number[] = [];
    const watched: ConcurrencyControl = {
      ...control,
      current: () => {
        const width = control.current();
        widths.push(width);
        if (!reached && width >= options.capacity) {
          const stats = sim.rateLimitStats();
          if (stats) reached = { at: performance.now(), stats };
        }
        return width;
      },
    };
    // The steady state ends when fewer renewals are left than the service takes at once.
    let drained: RateLimitStats | undefined;
    const onResult = (_result: unknown, done: number, total: number) => {
      if (!drained && total - done <= options.capacity) drained = sim.rateLimitStats();
    };
    const from = sim.rateLimitStats();
    const started = performance.now();
    // The adaptive limit under watch, a fresh ledger, a 10-minute deadline.
    const ports = {
      ...runtime,
      ledger: memoryLedger(),
      concurrency: watched,
      settings: { ...runtime.settings, sweepDeadlineMs: 600_000, dryRun: false },
    };
    const summary = await sweep(ports, silentLogger, { onResult, trigger: "cli" });
    const ms = performance.now() - started;
    const to = sim.rateLimitStats();
    if (!from || !to) throw new Error("the simulator has no rate limit");
    const renewals = sim.certificates().map((c) => sim.renewCallsFor(c.certificateName));
    return {
      ms,
      scheduled: summary.counts["renewal-scheduled"],
      failed: summary.counts.failed + summary.counts["not-attempted"],
      doubled: renewals.filter((n) => n > 1).length,
      throttled: to.throttled - from.throttled,
      peakInFlight: to.peakInFlight,
      utilisation: meanInFlight(from, to) / options.capacity,
      steadyUtilisation: reached
        ? meanInFlight(reached.stats, drained ?? to) / options.capacity
        : 0,
      reachedAfterMs: reached ? reached.at - started : undefined,
      limits: {
        min: Math.min(...widths),
        max: Math.max(...widths),
        final: control.current(),
      },
    };
  } finally {
    await runtime.close();
    await sim.close();
  }
}

const pct = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;

/** The rate-limited section: adaptive concurrency against a service answering 429 above a capacity. */
export async function rateLimitBench(
  options: RateLimitBenchOptions,
): Promise<{ section: Section; gates: Gate[] }> {
  const runs: RateLimitRun[] = [];
  for (let run = 1; run <= options.runs; run++) {
    const r = await rateLimitedSweep(options);
    runs.push(r);
    options.progress(
      `rate-limited sweep ${run}/${options.runs}: ${formatMs(r.ms)}, ${r.scheduled} scheduled, ${r.failed} failed, ${r.throttled} 429s, utilisation ${pct(r.utilisation)} (steady ${pct(r.steadyUtilisation)}), limit ${r.limits.min}..${r.limits.max}`,
    );
  }
  const steady = median(runs.map((r) => r.steadyUtilisation));
  const overall = median(runs.map((r) => r.utilisation));
  const failed = Math.max(...runs.map((r) => r.failed));
  const doubled = Math.max(...runs.map((r) => r.doubled));
  const n = options.certificates;
  const scheduledAll = runs.every((r) => r.scheduled === n);
  const reachedMs = runs.map((r) => r.reachedAfterMs);
  const rows: Section["rows"][number][] = [
    {
      measure: `Mean in flight at the service / capacity ${options.capacity}, once the limit reached it, while more was left than it takes`,
      value: `${pct(steady)} (runs: ${runs.map((r) => pct(r.steadyUtilisation)).join(", ")})`,
      goal: ">= 90 %",
      met: steady >= 0.9,
    },
    {
      measure: "The same over the whole sweep (the climb from the start value included)",
      value: `${pct(overall)} (runs: ${runs.map((r) => pct(r.utilisation)).join(", ")})`,
    },
    {
      measure: `Limit reached the capacity after`,
      value: reachedMs.map((ms) => (ms === undefined ? "never" : formatMs(ms))).join(", "),
    },
    {
      measure: "Failed or not attempted renewals",
      value: `${failed} (every run: ${runs.map((r) => r.failed).join(", ")}); renewed twice: ${doubled}`,
      goal: "0, and each certificate renewed once",
      met: failed === 0 && doubled === 0 && scheduledAll,
    },
    {
      measure: `Sweep wall time, N=${n}`,
      value: `${formatMs(median(runs.map((r) => r.ms)))} (runs: ${runs.map((r) => formatMs(r.ms)).join(", ")}); at the capacity throughout: ${formatMs((n / options.capacity) * options.latencyMs)}`,
    },
    {
      measure: "429 answers per sweep; most in flight at the service",
      value: `${runs.map((r) => r.throttled).join(", ")}; ${Math.max(...runs.map((r) => r.peakInFlight))}`,
    },
    {
      measure: "Limit seen by the pool (lowest..highest, at the end)",
      value: runs.map((r) => `${r.limits.min}..${r.limits.max}, ${r.limits.final}`).join("; "),
    },
  ];
  const gates: Gate[] = [
    {
      name: "rate-limited sweep reaches 90 % of the capacity",
      ok: steady >= 0.9,
      detail: `${pct(steady)} of capacity ${options.capacity} in flight once reached (median of ${runs.length})`,
    },
    {
      name: "rate-limited sweep fails no renewal",
      ok: failed === 0 && doubled === 0 && scheduledAll,
      detail: `${failed} failed or not attempted, ${doubled} renewed twice, of ${n}`,
    },
  ];
  const notes = [
    `A simulator that answers 429 (Retry-After: ${options.retryAfterSeconds} s) to every service request above ${options.capacity} in flight (SimulatorOptions.rateLimit), latencyMs ${options.latencyMs}, seeded with ${n} due certificates; one runtime with CERTSCHED_RENEWAL_CONCURRENCY=${options.start} and CERTSCHED_RENEWAL_CONCURRENCY_MAX=${options.cap}; the sweep with the account's adaptive concurrency (runtime.concurrency: AIMD, +1 per healthy window, x0.5 on a 429, fast recovery to just below the level that drew the 429), memoryLedger.`,
    'Utilisation: the simulator integrates its requests in flight over time (rateLimitStats().inFlightMs); the mean between two readings divided by the capacity. "Once the limit reached it": from the first time the pool read a width >= the capacity until fewer renewals were left than the capacity (the climb from the start value and the last renewals, which no width can fill, are shown in the line below).',
    "A 429 is retried by the HTTP client (Retry-After honoured) and, when those retries run out, asked again by the sweep with its pool slot given back, until the sweep deadline: nothing is ordered twice (each certificate's renew calls are counted on the simulator).",
  ];
  return { section: { title: "Rate-limited service: adaptive concurrency", rows, notes }, gates };
}
