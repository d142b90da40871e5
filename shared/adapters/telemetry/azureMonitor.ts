import { useAzureMonitor } from "@azure/monitor-opentelemetry";
import { metrics, trace } from "@opentelemetry/api";
import type { Telemetry } from "../../core/ports/telemetry.js";
import { otelTelemetry, SCOPE } from "./otelTelemetry.js";

/**
 * Never import this module statically: it pulls in the whole OpenTelemetry SDK. The runtime
 * imports it on first use, and only when APPLICATIONINSIGHTS_CONNECTION_STRING is set
 * (test/functions/registrations.lazyLoading.test.ts holds that line).
 */

let started: Promise<Telemetry> | undefined;

interface Flushable {
  forceFlush?: () => Promise<unknown>;
  getDelegate?: () => unknown;
}

/** The SDK provider behind the API's global (the tracer provider is a proxy). */
async function flushProvider(provider: unknown): Promise<void> {
  const p = provider as Flushable;
  const target = (typeof p.getDelegate === "function" ? p.getDelegate() : p) as Flushable;
  await target.forceFlush?.();
}

/**
 * Starts the Azure Monitor distribution once per process (it registers the global providers)
 * and returns certsched's instruments on them. A second call returns the first telemetry; a
 * failed start is forgotten so the next sweep tries again.
 */
export function startAzureMonitor(connectionString: string, now: () => Date): Promise<Telemetry> {
  started ??= (async () => {
    useAzureMonitor({
      azureMonitorExporterOptions: { connectionString },
      // One sweep span a day: the default rate-limited sampler may drop the first span of a
      // fresh instance, which for a timer is the only one. Keep every trace.
      samplingRatio: 1,
      tracesPerSecond: 0,
    });
    return otelTelemetry({
      meter: metrics.getMeter(SCOPE),
      tracer: trace.getTracer(SCOPE),
      now,
      flush: async () => {
        await Promise.all([
          flushProvider(metrics.getMeterProvider()),
          flushProvider(trace.getTracerProvider()),
        ]);
      },
    });
  })().catch((error: unknown) => {
    started = undefined;
    throw error;
  });
  return started;
}
