import {
  type Attributes,
  type Context,
  type Counter,
  context,
  defaultTextMapGetter,
  type Histogram,
  type Meter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { daysLeft } from "../../core/certificate/dates.js";
import type {
  RecordVerificationOptions,
  Telemetry,
  TraceParent,
} from "../../core/ports/telemetry.js";
import { OUTCOMES, type Outcome, type SweepSummary } from "../../core/renewal/summary.js";
import type { InventoryVerification } from "../../core/verification/inventoryResult.js";
import { ensureError } from "../../lib/errors.js";
import { redact } from "../../lib/redact/redact.js";

/** Names of what certsched emits; docs/operations.md shows how to query each. */
export const INSTRUMENTS = {
  /** Observable gauge, days (rounded down) until expiry; attributes `certificate`, `target`. */
  daysLeft: "certsched.certificate.days_left",
  /** Counter of certificate outcomes per sweep; attributes `outcome`, `dry_run`. */
  outcomes: "certsched.sweep.outcomes",
  /** Histogram of token requests, ms; attribute `status`. */
  tokenDuration: "certsched.token.duration",
  /** Histogram of calls to the service and other upstreams, ms; attributes `upstream`, `status`. */
  upstreamDuration: "certsched.upstream.duration",
  /** One span per sweep, its counts as attributes. */
  sweepSpan: "certsched.sweep",
  /**
   * Observable gauge, days (rounded down) until the certificate users are served expires, as
   * the latest verification read it (not as the service says); attributes `certificate` (the
   * inventory name, or the watched endpoint), `domain`, `source` ("tls" or "keyvault").
   */
  servedDaysLeft: "certsched.certificate.served_days_left",
  /** Counter of verification results; attributes `status`, `critical`. */
  verifications: "certsched.verification.results",
} as const;

/** Meter and tracer name (the instrumentation scope). */
export const SCOPE = "certsched";

export interface OtelTelemetryOptions {
  readonly meter: Meter;
  readonly tracer: Tracer;
  /** The clock the days-left gauge reads when it is observed. */
  readonly now?: () => Date;
  /** Pushes recorded data to the exporter (the providers' forceFlush). */
  readonly flush?: () => Promise<void>;
}

/** A certificate as the latest verification read it. */
interface Served {
  readonly certificate: string;
  readonly domain: string;
  readonly source: string;
  readonly notAfter: Date;
}

interface Watched {
  readonly certificate: string;
  readonly target: string;
  readonly expiry: Date;
}

/** "renewal-scheduled" → "renewal_scheduled": attribute keys read better without hyphens. */
function key(outcome: Outcome | "due"): string {
  return `certsched.count.${outcome.replace(/-/g, "_")}`;
}

function sweepAttributes(summary: SweepSummary): Attributes {
  const attributes: Attributes = {
    "certsched.dry_run": summary.dryRun,
    ...(summary.forced ? { "certsched.forced": true } : {}),
    "certsched.ledger": summary.ledger,
    "certsched.failed": summary.failed,
    [key("due")]: summary.counts.due,
  };
  for (const outcome of OUTCOMES) attributes[key(outcome)] = summary.counts[outcome];
  if (summary.listError) attributes["certsched.list_error"] = redact(summary.listError);
  return attributes;
}

const w3c = new W3CTraceContextPropagator();

/**
 * The context to start the sweep span in: the invocation's trace when the host passed one (an
 * invalid traceparent is ignored by the propagator: the span becomes a root), else the active.
 */
function parentContext(parent: TraceParent | undefined): Context {
  if (!parent?.traceParent) return context.active();
  const carrier: Record<string, string> = { traceparent: parent.traceParent };
  if (parent.traceState) carrier.tracestate = parent.traceState;
  return w3c.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

/** The HTTP status as an attribute value; "error" when no answer came. */
function statusText(status: number | undefined): string {
  return status === undefined ? "error" : String(status);
}

/**
 * Telemetry through the OpenTelemetry API, on the meter and tracer it is given: Azure Monitor's
 * in production (azureMonitor.ts), in-memory readers and exporters in tests.
 */
export function otelTelemetry(options: OtelTelemetryOptions): Telemetry {
  return new OtelTelemetry(options);
}

/**
 * The telemetry as a class: its methods are fields, so that they can be passed around and the
 * object spread like the object of functions it was.
 */
class OtelTelemetry implements Telemetry {
  readonly #tracer: Tracer;
  readonly #now: () => Date;
  /**
   * The gauge reports the certificates of the latest sweep, with days left as of the moment it
   * is observed; a certificate that left the due list leaves the gauge with the next sweep.
   */
  #watched: readonly Watched[] = [];
  /**
   * Keyed by certificate and domain; a certificate that could not be read (unreachable) leaves
   * the gauge until it is read again: what it serves is unknown, not its old expiry.
   */
  readonly #served = new Map<string, Served>();
  readonly #verifications: Counter;
  readonly #outcomes: Counter;
  readonly #tokenDuration: Histogram;
  readonly #upstreamDuration: Histogram;

  constructor(options: OtelTelemetryOptions) {
    const { meter, tracer } = options;
    this.#tracer = tracer;
    this.#now = options.now ?? (() => new Date());
    this.#observeDaysLeft(meter);
    this.#observeServedDaysLeft(meter);
    this.#verifications = meter.createCounter(INSTRUMENTS.verifications, {
      description: "Verification results per status",
    });
    this.#outcomes = meter.createCounter(INSTRUMENTS.outcomes, {
      description: "Certificates per sweep outcome",
    });
    this.#tokenDuration = meter.createHistogram(INSTRUMENTS.tokenDuration, {
      description: "Duration of cloud token requests, retries included",
      unit: "ms",
    });
    this.#upstreamDuration = meter.createHistogram(INSTRUMENTS.upstreamDuration, {
      description: "Duration of calls to the service and other upstreams, retries included",
      unit: "ms",
    });
    this.flush = options.flush ?? (async () => {});
  }

  readonly inSweepSpan = (
    run: () => Promise<SweepSummary>,
    parent?: TraceParent,
  ): Promise<SweepSummary> => {
    return this.#tracer.startActiveSpan(
      INSTRUMENTS.sweepSpan,
      { kind: SpanKind.INTERNAL },
      parentContext(parent),
      async (span) => {
        try {
          const summary = await run();
          span.setAttributes(sweepAttributes(summary));
          if (summary.failed) {
            span.setStatus({
              code: SpanStatusCode.ERROR,
              message: redact(summary.problems.join("; ")).slice(0, 1000),
            });
          }
          return summary;
        } catch (error) {
          const e = ensureError(error);
          span.recordException({ name: e.name, message: redact(e.message) });
          span.setStatus({ code: SpanStatusCode.ERROR, message: redact(e.message) });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  };

  readonly recordSweep = (summary: SweepSummary): void => {
    this.#watched = summary.results.map((r) => ({
      certificate: r.certificateName,
      target: r.target,
      expiry: new Date(r.expiryDate),
    }));
    for (const outcome of OUTCOMES) {
      const count = summary.counts[outcome];
      if (count > 0) this.#outcomes.add(count, { outcome, dry_run: summary.dryRun });
    }
  };

  readonly recordVerification: Telemetry["recordVerification"] = (verification, recordOptions) => {
    this.#keepServed(verification, recordOptions);
    for (const c of countByStatus(verification.results).values()) {
      this.#verifications.add(c.n, { status: c.status, critical: c.critical });
    }
  };

  readonly recordCall: Telemetry["recordCall"] = (upstream, durationMs, status) => {
    const attributes = { status: statusText(status) };
    if (upstream === "token") this.#tokenDuration.record(durationMs, attributes);
    else this.#upstreamDuration.record(durationMs, { upstream, ...attributes });
  };

  readonly flush: Telemetry["flush"];

  /** Days left of each certificate of the latest sweep, as of the moment it is observed. */
  #observeDaysLeft(meter: Meter): void {
    meter
      .createObservableGauge(INSTRUMENTS.daysLeft, {
        description: "Days until the certificate expires, for certificates in the latest due list",
        unit: "d",
      })
      .addCallback((result) => {
        const at = this.#now();
        for (const w of this.#watched) {
          result.observe(daysLeft(w.expiry, at), { certificate: w.certificate, target: w.target });
        }
      });
  }

  /** Days left of each certificate served, as the latest verification read it. */
  #observeServedDaysLeft(meter: Meter): void {
    meter
      .createObservableGauge(INSTRUMENTS.servedDaysLeft, {
        description:
          "Days until the certificate users are served expires, as the latest verification read it",
        unit: "d",
      })
      .addCallback((result) => {
        const at = this.#now();
        for (const s of this.#served.values()) {
          result.observe(daysLeft(s.notAfter, at), {
            certificate: s.certificate,
            domain: s.domain,
            source: s.source,
          });
        }
      });
  }

  /** What each domain serves, as `verification` read it (a partial one keeps the rest). */
  #keepServed(
    verification: InventoryVerification,
    recordOptions: RecordVerificationOptions | undefined,
  ): void {
    if (!recordOptions?.partial) this.#served.clear();
    for (const r of verification.results) {
      const certificate = r.certificateName ?? r.domain;
      const key = `${certificate}\u0000${r.domain}\u0000${r.source}`;
      const notAfter = r.servedNotAfter === undefined ? undefined : new Date(r.servedNotAfter);
      if (notAfter === undefined || Number.isNaN(notAfter.getTime())) this.#served.delete(key);
      else this.#served.set(key, { certificate, domain: r.domain, source: r.source, notAfter });
    }
  }
}

/** The results counted by status and criticality, in the order each first appears. */
function countByStatus(
  results: InventoryVerification["results"],
): Map<string, { status: string; critical: boolean; n: number }> {
  const counts = new Map<string, { status: string; critical: boolean; n: number }>();
  for (const r of results) {
    const critical = r.critical === true;
    const key = `${r.status}/${critical}`;
    const entry = counts.get(key) ?? { status: r.status, critical, n: 0 };
    entry.n += 1;
    counts.set(key, entry);
  }
  return counts;
}
