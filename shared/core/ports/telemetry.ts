import type { SweepSummary } from "../renewal/summary.js";
import type { InventoryVerification } from "../verification/inventoryResult.js";

/**
 * What certsched reports to a monitoring backend. The default does nothing; with
 * APPLICATIONINSIGHTS_CONNECTION_STRING set the runtime loads the OpenTelemetry implementation
 * (see azureMonitor.ts) on first use, so a cold start without telemetry never pays for it.
 */
export interface Telemetry {
  /**
   * Runs one sweep inside the "certsched.sweep" span, which gets the summary's counts. With the
   * invocation's W3C trace context (the host's `InvocationContext.traceContext`) the span is a
   * child of the host's invocation, so Application Insights shows them as one operation, even
   * for the first sweep of an instance, when telemetry started after the invocation began.
   */
  inSweepSpan(run: () => Promise<SweepSummary>, parent?: TraceParent): Promise<SweepSummary>;
  /** Days left per certificate and the count of each outcome. */
  recordSweep(summary: SweepSummary): void;
  /**
   * A verification run: days left per certificate as served, and the count of each
   * status. A run over some names (after a sweep) updates those and keeps the others.
   */
  recordVerification(
    verification: InventoryVerification,
    options?: RecordVerificationOptions,
  ): void;
  /**
   * One finished outbound call (HttpClient's onCall). `upstream` "token" goes to the token
   * histogram, every other upstream to the upstream histogram.
   * @param durationMs wall time of the call including retries, in ms
   * @param status the HTTP status, or undefined when no answer came (timeout, reset)
   */
  recordCall(upstream: string, durationMs: number, status: number | undefined): void;
  /** Exports what was recorded now: a timer's instance may be frozen right after the sweep. */
  flush(): Promise<void>;
}

export interface RecordVerificationOptions {
  /**
   * The run checked only some certificates (after a sweep): the gauge updates those and keeps
   * the others. Default false: the run is the whole inventory and replaces the gauge's set.
   */
  readonly partial?: boolean;
}

/** The W3C trace context an invocation carries (InvocationContext.traceContext's shape). */
export interface TraceParent {
  /** `traceparent`: version-traceid-parentid-flags. */
  readonly traceParent?: string | undefined;
  readonly traceState?: string | undefined;
}

/** Telemetry off: every method does nothing. */
export const noTelemetry: Telemetry = {
  inSweepSpan: (run) => run(),
  recordSweep() {},
  recordVerification() {},
  recordCall() {},
  flush: async () => {},
};
