import { afterEach, describe, expect, it } from "vitest";
import { INSTRUMENTS } from "../../../../shared/adapters/telemetry/otelTelemetry.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { type AccountPorts, createAccountPorts } from "../../../../shared/app/services.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { noTelemetry, type Telemetry } from "../../../../shared/core/ports/telemetry.js";
import type { SweepSummary } from "../../../../shared/core/renewal/summary.js";
import { guardedTelemetry } from "../../../../shared/core/telemetry/guardedTelemetry.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { type Simulator, sandboxSettings, startSimulator } from "../../../../sim/index.js";
import { histogramCounts, inMemoryTelemetry } from "../../../support/telemetry.js";

const SUMMARY: SweepSummary = {
  dryRun: false,
  startedAt: "2026-03-01T03:00:00.000Z",
  durationMs: 5,
  ledger: "none",
  results: [],
  rejected: [],
  counts: {
    due: 0,
    "renewal-scheduled": 0,
    "would-renew": 0,
    skipped: 0,
    failed: 0,
    stuck: 0,
    blocked: 0,
    "not-attempted": 0,
    deferred: 0,
    waiting: 0,
    disabled: 0,
  },
  failed: false,
  problems: [],
};

function broken(overrides: Partial<Telemetry>): Telemetry {
  return { ...noTelemetry, ...overrides };
}

describe("guardedTelemetry", () => {
  it("runs the sweep once when the span cannot start, and says why", async () => {
    const warnings: string[] = [];
    let runs = 0;
    const t = guardedTelemetry(
      broken({
        inSweepSpan: async () => {
          throw new Error("exporter misconfigured");
        },
      }),
      (m) => warnings.push(m),
    );
    const summary = await t.inSweepSpan(async () => {
      runs += 1;
      return SUMMARY;
    });
    expect(summary).toBe(SUMMARY);
    expect(runs).toBe(1);
    expect(warnings).toEqual([
      "certsched telemetry span failed, continuing: exporter misconfigured",
    ]);
  });

  it("keeps the summary when the span fails after the sweep, without a second run", async () => {
    const warnings: string[] = [];
    let runs = 0;
    const t = guardedTelemetry(
      broken({
        inSweepSpan: async (run) => {
          await run();
          throw new Error("span end failed");
        },
      }),
      (m) => warnings.push(m),
    );
    const summary = await t.inSweepSpan(async () => {
      runs += 1;
      return SUMMARY;
    });
    expect(summary).toBe(SUMMARY);
    expect(runs).toBe(1);
    expect(warnings).toHaveLength(1);
  });

  it("lets the sweep's own failure through as it is", async () => {
    const warnings: string[] = [];
    const t = guardedTelemetry(noTelemetry, (m) => warnings.push(m));
    await expect(
      t.inSweepSpan(async () => {
        throw new Error("sweep bug");
      }),
    ).rejects.toThrow("sweep bug");
    expect(warnings).toEqual([]);
  });

  it("swallows recording failures and a flush that never ends", async () => {
    const warnings: string[] = [];
    const t = guardedTelemetry(
      broken({
        recordSweep: () => {
          throw new Error("no meter");
        },
        recordCall: () => {
          throw new Error("no histogram");
        },
        flush: () => new Promise(() => {}),
      }),
      (m) => warnings.push(m),
      20,
    );
    t.recordSweep(SUMMARY);
    t.recordCall("list", 3, 200);
    await t.flush();
    expect(warnings).toEqual([
      "certsched telemetry recording failed, continuing: no meter",
      "certsched telemetry recording failed, continuing: no histogram",
      "certsched telemetry flush took over 20 ms; not waiting",
    ]);
  });
});

describe("otelTelemetry.recordCall", () => {
  it.each([
    { upstream: "token", status: 200, metric: INSTRUMENTS.tokenDuration, row: { status: "200" } },
    {
      upstream: "token",
      status: undefined,
      metric: INSTRUMENTS.tokenDuration,
      row: { status: "error" },
    },
    {
      upstream: "list",
      status: 503,
      metric: INSTRUMENTS.upstreamDuration,
      row: { upstream: "list", status: "503" },
    },
    {
      upstream: "webhook",
      status: undefined,
      metric: INSTRUMENTS.upstreamDuration,
      row: { upstream: "webhook", status: "error" },
    },
  ])("$upstream $status → $metric $row", async ({ upstream, status, metric, row }) => {
    const otel = inMemoryTelemetry();
    otel.telemetry.recordCall(upstream, 42, status);
    const metrics = await otel.collect();
    expect(histogramCounts(metrics.get(metric))).toEqual([{ ...row, count: 1 }]);
    await otel.close();
  });
});

describe("sweep when telemetry cannot start", () => {
  let sim: Simulator | undefined;
  let runtime: AccountPorts | undefined;
  afterEach(async () => {
    await runtime?.close();
    await sim?.close();
  });

  it("sweeps without it and logs one warning", async () => {
    sim = await startSimulator();
    const real = createAccountPorts(loadSettings(sandboxSettings(sim)), { ledger: memoryLedger() });
    runtime = real;
    const lines: string[] = [];
    const log = {
      info: (m: string) => lines.push(m),
      warn: (m: string) => lines.push(`WARN ${m}`),
      error: (m: string) => lines.push(m),
    };
    const failing: AccountPorts = {
      ...real,
      telemetry: () =>
        Promise.reject(new Error("Cannot find package '@azure/monitor-opentelemetry'")),
    };
    const summary = await sweep(failing, log);
    expect(summary.failed).toBe(false);
    expect(lines.filter((l) => l.startsWith("WARN certsched telemetry"))).toEqual([
      "WARN certsched telemetry could not start, sweeping without it: Cannot find package '@azure/monitor-opentelemetry'",
    ]);
  });
});
