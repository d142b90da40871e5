import {
  AggregationTemporality,
  type DataPoint,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { otelTelemetry, SCOPE } from "../../shared/adapters/telemetry/otelTelemetry.js";
import type { Telemetry } from "../../shared/core/ports/telemetry.js";

/**
 * certsched's telemetry on real OpenTelemetry SDK providers whose exporters keep everything in
 * memory. Nothing is exported until the telemetry is flushed (as sweep does after a sweep)
 * or `collect()` is called: the export interval is far longer than any test.
 */
export interface InMemoryTelemetry {
  readonly telemetry: Telemetry;
  /** How many times the telemetry's flush ran. */
  readonly flushes: number;
  /** Exports now and returns that export's metrics (what happened since the last), by name. */
  collect(): Promise<Map<string, MetricData>>;
  /** The latest export's metrics, by name (what the exporter received, nothing forced). */
  exported(): Map<string, MetricData>;
  spans(): ReadableSpan[];
  close(): Promise<void>;
}

export function inMemoryTelemetry(now?: () => Date): InMemoryTelemetry {
  // Delta, as Azure Monitor's exporter asks for gauges, counters and histograms: each export
  // holds what happened since the previous one, and a gauge only what it observed just now.
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spanExporter)],
  });
  let flushes = 0;
  const flush = async () => {
    flushes += 1;
    await Promise.all([meterProvider.forceFlush(), tracerProvider.forceFlush()]);
  };
  const latest = (): Map<string, MetricData> => {
    const byName = new Map<string, MetricData>();
    for (const scope of metricExporter.getMetrics().at(-1)?.scopeMetrics ?? []) {
      for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
    }
    return byName;
  };
  return {
    telemetry: otelTelemetry({
      meter: meterProvider.getMeter(SCOPE),
      tracer: tracerProvider.getTracer(SCOPE),
      ...(now ? { now } : {}),
      flush,
    }),
    get flushes() {
      return flushes;
    },
    async collect() {
      await meterProvider.forceFlush();
      return latest();
    },
    exported: latest,
    spans: () => spanExporter.getFinishedSpans(),
    async close() {
      await Promise.all([meterProvider.shutdown(), tracerProvider.shutdown()]);
    },
  };
}

/** The data points of a metric as plain rows: its attributes plus `value`. */
export function points(metric: MetricData | undefined): Array<Record<string, unknown>> {
  if (!metric) return [];
  return (metric.dataPoints as DataPoint<unknown>[]).map((p) => ({
    ...p.attributes,
    value: p.value,
  }));
}

/** Histogram data points as rows: attributes plus `count`. */
export function histogramCounts(metric: MetricData | undefined): Array<Record<string, unknown>> {
  if (!metric) return [];
  return (metric.dataPoints as DataPoint<{ count: number }>[]).map((p) => ({
    ...p.attributes,
    count: p.value.count,
  }));
}
