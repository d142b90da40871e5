import { describe, expect, it } from "vitest";
import { signalOf } from "../../../../shared/core/concurrency/signals.js";

const report = (over: Partial<Parameters<typeof signalOf>[0]>) => ({
  upstream: "publicRenew" as const,
  durationMs: 40,
  status: 200 as number | undefined,
  errorCode: undefined as string | undefined,
  ...over,
});

describe("signalOf", () => {
  it("reads a renewal's 429 as throttled, any other answer as answered with its time", () => {
    expect(signalOf(report({ status: 429 }), 3)).toEqual({ kind: "throttled", epoch: 3 });
    expect(signalOf(report({ status: 200 }), 1)).toEqual({
      kind: "answered",
      latencyMs: 40,
      epoch: 1,
    });
    expect(signalOf(report({ upstream: "renew", status: 500, durationMs: -1 }), 0)).toEqual({
      kind: "answered",
      latencyMs: 0,
      epoch: 0,
    });
  });

  it("reads no answer in time as a timeout, other network failures as nothing", () => {
    for (const code of ["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]) {
      expect(signalOf(report({ status: undefined, errorCode: code }), 2)).toEqual({
        kind: "timeout",
        epoch: 2,
      });
    }
    expect(signalOf(report({ status: undefined, errorCode: "ECONNRESET" }), 0)).toBeUndefined();
  });

  it("ignores calls that are not renewals: tokens, lists, tests", () => {
    for (const upstream of ["token", "list", "test", "get"] as const) {
      expect(signalOf(report({ upstream, status: 429 }), 0)).toBeUndefined();
    }
  });
});
