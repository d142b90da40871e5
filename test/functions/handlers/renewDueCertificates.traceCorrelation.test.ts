import { InvocationContext } from "@azure/functions";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renewDueCertificates } from "../../../functions/renewDueCertificates.js";
import { INSTRUMENTS } from "../../../shared/adapters/telemetry/otelTelemetry.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import { sampleCertificates } from "../../../sim/index.js";
import { type AppHarness, startHarness } from "../../support/app.js";
import { timer } from "../../support/invoke.js";
import { type InMemoryTelemetry, inMemoryTelemetry } from "../../support/telemetry.js";

// What the host hands the worker for an invocation: its own span in the operation's trace.
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const HOST_SPAN_ID = "00f067aa0ba902b7";

function invocation(traceParent: string | undefined): InvocationContext {
  return new InvocationContext({
    invocationId: "trace-test",
    functionName: "renewDueCertificates",
    ...(traceParent ? { traceContext: { traceParent, traceState: "az=certsched" } } : {}),
    logHandler: () => {},
  });
}

describe("the sweep span joins the host's invocation trace", () => {
  let app: AppHarness;
  let otel: InMemoryTelemetry;

  beforeEach(async () => {
    app = await startHarness({ certificates: sampleCertificates(new Date()) });
    otel = inMemoryTelemetry();
    await app.configure({}, { ledger: memoryLedger(), telemetry: otel.telemetry });
  });

  afterEach(async () => {
    await app.close();
    await otel.close();
  });

  const sweepSpan = () => otel.spans().find((s) => s.name === INSTRUMENTS.sweepSpan);

  it("is a child of the traceparent the host passed, on the first sweep of the instance", async () => {
    // The sandbox's staged refusal fails the run: the timer throws, the span is still exported.
    await renewDueCertificates(timer(), invocation(`00-${TRACE_ID}-${HOST_SPAN_ID}-01`)).catch(
      () => {},
    );
    const span = sweepSpan();
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(HOST_SPAN_ID);
    expect(span?.spanContext().traceState?.get("az")).toBe("certsched");
  });

  it("starts a trace of its own when the host passed none, or an invalid one", async () => {
    await renewDueCertificates(timer(), invocation(undefined)).catch(() => {});
    await renewDueCertificates(timer(), invocation("00-not-a-trace-01")).catch(() => {});
    const spans = otel.spans().filter((s) => s.name === INSTRUMENTS.sweepSpan);
    expect(spans).toHaveLength(2);
    for (const span of spans) {
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe(TRACE_ID);
    }
  });
});
