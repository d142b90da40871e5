import { afterEach, describe, expect, it } from "vitest";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { adaptiveLimit } from "../../../../shared/core/concurrency/adaptiveLimit.js";
import { DEFAULT_RULE } from "../../../../shared/core/concurrency/aimd.js";
import type { ConcurrencyControl } from "../../../../shared/core/ports/concurrency.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { type Simulator, type SimulatorOptions, startSimulator } from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor } from "../../../support/app.js";
import { type RenewDueOptions, renewDueWith } from "../../../support/renewDue.js";

let sim: Simulator;
let runtime: AccountPorts;
let logs: string[] = [];

afterEach(async () => {
  expect(leaksIn(sim, logs)).toEqual([]);
  await runtime.close();
  await sim.close();
});

const due = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    certificateName: `due-${i}`,
    expiryDate: new Date(Date.now() + (3 + (i % 10)) * DAY_MS),
  }));

async function start(options: SimulatorOptions) {
  sim = await startSimulator({ completionDelayMs: 30 * 60_000, ...options });
  runtime = runtimeFor(sim);
  logs = [];
}

/** The control, with every width the pool read kept in order. */
function watched(control: ConcurrencyControl) {
  const widths: number[] = [];
  return {
    widths,
    control: {
      ...control,
      current: () => {
        const width = control.current();
        widths.push(width);
        return width;
      },
    } satisfies ConcurrencyControl,
  };
}

async function sweep(options: Partial<RenewDueOptions>) {
  const { log, lines } = collectingLogger();
  const summary = await renewDueWith({
    client: runtime.client,
    ledger: memoryLedger(),
    log,
    now: () => new Date(),
    concurrency: 4,
    graceMs: 2 * 3_600_000,
    dryRun: false,
    ...options,
  });
  logs.push(...lines.map((l) => l.message));
  return { summary, lines };
}

describe("runSweep with adaptive concurrency over a rate-limited service", () => {
  it("backs off on 429s, grows again while healthy, and no renewal fails", async () => {
    await start({
      latencyMs: 30,
      rateLimit: { capacity: 6, retryAfterSeconds: 0 },
      certificates: due(150),
    });
    const rule = { ...DEFAULT_RULE, start: 16, cap: 24 };
    const { control, widths } = watched(adaptiveLimit({ rule, now: () => Date.now() }));
    const { summary } = await sweep({ control, deadline: AbortSignal.timeout(120_000) });

    expect(summary.counts.failed).toBe(0);
    expect(summary.counts["renewal-scheduled"]).toBe(150);
    expect(summary.failed).toBe(false);
    // Each certificate ordered exactly once: a 429 ordered nothing, and asking again was safe.
    for (const cert of sim.certificates()) expect(sim.renewCallsFor(cert.certificateName)).toBe(1);
    const stats = sim.rateLimitStats();
    expect(stats?.throttled).toBeGreaterThan(0);
    expect(stats?.peakInFlight).toBeLessThanOrEqual(6);
    // Started at 16, backed off below the capacity, and grew again after its lowest point.
    expect(widths[0]).toBe(16);
    const lowest = Math.min(...widths);
    expect(lowest).toBeLessThan(6);
    const afterLowest = widths.slice(widths.indexOf(lowest));
    expect(Math.max(...afterLowest)).toBeGreaterThan(lowest);
    expect(Math.max(...widths)).toBeLessThanOrEqual(24);
    expect(control.state().epoch).toBeGreaterThan(0);
  }, 120_000);

  it("keeps the width fixed without adaptive concurrency, and still renews everything through 429s", async () => {
    await start({
      latencyMs: 20,
      rateLimit: { capacity: 3, retryAfterSeconds: 0 },
      certificates: due(30),
    });
    const { summary } = await sweep({ concurrency: 8, deadline: AbortSignal.timeout(120_000) });
    expect(summary.counts["renewal-scheduled"]).toBe(30);
    expect(summary.counts.failed).toBe(0);
    expect(sim.rateLimitStats()?.throttled).toBeGreaterThan(0);
    for (const cert of sim.certificates()) expect(sim.renewCallsFor(cert.certificateName)).toBe(1);
  }, 120_000);

  it("gives up asking once the deadline passes: the renewal fails with the service's 429", async () => {
    await start({ certificates: due(1) });
    sim.inject("publicRenew", {
      status: 429,
      headers: { "retry-after": "0" },
      body: "Too many requests",
      times: Number.POSITIVE_INFINITY,
    });
    const started = performance.now();
    const { summary } = await sweep({ deadline: AbortSignal.timeout(1_500) });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(summary.results).toEqual([
      expect.objectContaining({
        certificateName: "due-0",
        outcome: "failed",
        status: 429,
        detail: expect.stringMatching(/answered 429: Too many requests/),
      }),
    ]);
    expect(summary.failed).toBe(true);
    expect(sim.renewCallsFor("due-0")).toBe(0);
  }, 30_000);

  it("with no 429 and the cap at the start value (the default), runs exactly as wide as configured", async () => {
    await start({ latencyMs: 20, certificates: due(40) });
    const { control, widths } = watched(runtime.concurrency);
    expect(control.kind).toBe("adaptive");
    const { summary } = await sweep({ control });
    expect(summary.counts["renewal-scheduled"]).toBe(40);
    expect(new Set(widths)).toEqual(new Set([runtime.settings.renewalConcurrency]));
  });
});
