import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INSTRUMENTS } from "../../../../shared/adapters/telemetry/otelTelemetry.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { type AccountPorts, createAccountPorts } from "../../../../shared/app/services.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { Logger } from "../../../../shared/lib/log.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import {
  type Simulator,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../../../../sim/index.js";
import {
  histogramCounts,
  type InMemoryTelemetry,
  inMemoryTelemetry,
  points,
} from "../../../support/telemetry.js";

const NOW = new Date("2026-03-01T03:00:00Z");
const now = () => NOW;

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(m),
    warn: (m) => lines.push(m),
    error: (m) => lines.push(m),
  };
}

describe("a sweep against the simulator, with in-memory OpenTelemetry", () => {
  let sim: Simulator;
  let otel: InMemoryTelemetry;
  let runtime: AccountPorts;

  beforeEach(async () => {
    sim = await startSimulator({ now, certificates: sampleCertificates(NOW) });
    otel = inMemoryTelemetry(now);
    runtime = createAccountPorts(loadSettings(sandboxSettings(sim)), {
      now,
      ledger: memoryLedger(),
      telemetry: otel.telemetry,
    });
  });

  afterEach(async () => {
    await runtime.close();
    await otel.close();
    await sim.close();
  });

  it("exports one span, days left per certificate, outcomes and call durations, flushed by the sweep", async () => {
    const log = capture();
    const summary = await sweep(runtime, log);
    expect(summary.counts).toMatchObject({ due: 7, "renewal-scheduled": 6, failed: 1 });

    // sweep flushed: the exporter holds the data without the test forcing anything.
    expect(otel.flushes).toBe(1);
    const metrics = otel.exported();

    const spans = otel.spans();
    expect(spans.map((s) => s.name)).toEqual([INSTRUMENTS.sweepSpan]);
    const span = spans[0];
    expect(span?.attributes).toMatchObject({
      "certsched.dry_run": false,
      "certsched.ledger": "memory",
      "certsched.failed": true,
      "certsched.count.due": 7,
      "certsched.count.renewal_scheduled": 6,
      "certsched.count.would_renew": 0,
      "certsched.count.skipped": 0,
      "certsched.count.failed": 1,
      "certsched.count.stuck": 0,
    });
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.status.message).toContain("1 renewal(s) failed");

    const daysLeft = points(metrics.get(INSTRUMENTS.daysLeft));
    expect(daysLeft).toHaveLength(7);
    expect(daysLeft).toEqual(
      expect.arrayContaining([
        { certificate: "www-contoso-com", target: "Cloud App Service", value: 5 },
        { certificate: "legacy-fabrikam-com", target: "Cloud App Service", value: -1 },
        { certificate: "vault-fabrikam-com", target: "Cloud Key Vault + DNS", value: 2 },
        { certificate: "intranet-contoso-com", target: "Cloud Key Vault + DNS", value: 8 },
        { certificate: "api-contoso-com", target: "Cloud Key Vault + DNS", value: 19 },
      ]),
    );

    expect(points(metrics.get(INSTRUMENTS.outcomes))).toEqual(
      expect.arrayContaining([
        { outcome: "renewal-scheduled", dry_run: false, value: 6 },
        { outcome: "failed", dry_run: false, value: 1 },
      ]),
    );
    expect(points(metrics.get(INSTRUMENTS.outcomes))).toHaveLength(2);

    // Two token requests (management, vault), whatever the number of certificates.
    expect(histogramCounts(metrics.get(INSTRUMENTS.tokenDuration))).toEqual([
      { status: "200", count: 2 },
    ]);
    expect(histogramCounts(metrics.get(INSTRUMENTS.upstreamDuration))).toEqual(
      expect.arrayContaining([
        { upstream: "list", status: "200", count: 1 },
        { upstream: "publicRenew", status: "200", count: 6 },
        { upstream: "publicRenew", status: "400", count: 1 },
      ]),
    );
    expect(histogramCounts(metrics.get(INSTRUMENTS.upstreamDuration))).toHaveLength(3);
    expect(metrics.get(INSTRUMENTS.upstreamDuration)?.descriptor.unit).toBe("ms");
  });

  it("a dry run is counted apart, and the gauge follows the latest due list", async () => {
    // Each sweep flushes, and each export holds what happened since the previous one.
    await sweep(runtime, capture(), { dryRun: true });
    let metrics = otel.exported();
    expect(points(metrics.get(INSTRUMENTS.outcomes))).toEqual([
      { outcome: "would-renew", dry_run: true, value: 7 },
    ]);
    expect(points(metrics.get(INSTRUMENTS.daysLeft))).toHaveLength(7);
    expect(otel.spans()[0]?.attributes["certsched.count.would_renew"]).toBe(7);

    await sweep(runtime, capture());
    metrics = otel.exported();
    expect(points(metrics.get(INSTRUMENTS.outcomes))).toEqual(
      expect.arrayContaining([
        { outcome: "renewal-scheduled", dry_run: false, value: 6 },
        { outcome: "failed", dry_run: false, value: 1 },
      ]),
    );

    // The simulator completed the six renewals at once, so the next list holds only the
    // refused certificate, and the gauge drops the others.
    await sweep(runtime, capture());
    metrics = otel.exported();
    expect(points(metrics.get(INSTRUMENTS.daysLeft))).toEqual([
      { certificate: "intranet-contoso-com", target: "Cloud Key Vault + DNS", value: 8 },
    ]);
    expect(points(metrics.get(INSTRUMENTS.outcomes))).toEqual([
      { outcome: "failed", dry_run: false, value: 1 },
    ]);
    expect(otel.spans()).toHaveLength(3);
    expect(otel.flushes).toBe(3);
  });

  it("a failed list still makes one span, marked failed, with no secret in it", async () => {
    // Twice: a first 401 is sent once more with fresh tokens (a 401 may mean a revoked token).
    sim.inject("list", { status: 401, body: `token rejected: ${sim.options.apiKey}`, times: 2 });
    const summary = await sweep(runtime, capture());
    expect(summary.listError).toBeDefined();
    const [span] = otel.spans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes["certsched.list_error"]).toEqual(expect.any(String));
    const text = JSON.stringify([span?.attributes, span?.status]);
    for (const secret of [sim.options.apiKey, sim.options.clientSecret, ...sim.issuedTokens()]) {
      expect(text).not.toContain(secret);
    }
  });
});
