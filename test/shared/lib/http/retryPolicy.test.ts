import { describe, expect, it } from "vitest";
import { responseDetail } from "../../../../shared/lib/http/responseDetail.js";
import {
  CREATE_ONLY_WHEN_REFUSED,
  type Failure,
  REPEATABLE,
  type RetryPolicy,
  retryAfterMs,
  retryDelayMs,
} from "../../../../shared/lib/http/retryPolicy.js";
import { REDACTED, registerSecret } from "../../../../shared/lib/redact/redact.js";

const NOW = Date.parse("2026-12-01T10:00:00Z");
const low = () => 0;
const high = () => 0.999999;

describe("retryAfterMs", () => {
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ["0", 0],
    ["1", 1_000],
    [" 120 ", 120_000],
    ["Tue, 01 Dec 2026 10:00:05 GMT", 5_000],
    ["Tue, 01 Dec 2026 10:00:00 GMT", 0],
    ["Tue, 01 Dec 2026 09:00:00 GMT", 0],
    ["Wed, 02 Dec 2026 10:00:00 GMT", 86_400_000],
    ["Tuesday, 01-Dec-26 10:00:05 GMT", 5_000],
    // Regression: Date.parse reads these as dates in 2001 or year -1, so they meant "now".
    ["-1", undefined],
    ["2026-12-01T10:00:05Z", undefined],
    ["1.5", undefined],
    ["soon", undefined],
    ["", undefined],
  ])("reads %j as %s ms", (header, ms) => {
    expect(retryAfterMs(header, NOW)).toBe(ms);
  });
});

describe("retryDelayMs: which failures are retried", () => {
  const cases: [string, RetryPolicy, Failure, boolean][] = [
    ["429 on a repeatable call", REPEATABLE, { status: 429 }, true],
    ["500 on a repeatable call", REPEATABLE, { status: 500 }, true],
    ["502 on a repeatable call", REPEATABLE, { status: 502 }, true],
    ["503 on a repeatable call", REPEATABLE, { status: 503 }, true],
    ["504 on a repeatable call", REPEATABLE, { status: 504 }, true],
    ["400 on a repeatable call", REPEATABLE, { status: 400 }, false],
    ["401 on a repeatable call", REPEATABLE, { status: 401 }, false],
    ["403 on a repeatable call", REPEATABLE, { status: 403 }, false],
    ["404 on a repeatable call", REPEATABLE, { status: 404 }, false],
    ["501 on a repeatable call", REPEATABLE, { status: 501 }, false],
    ["a reset on a repeatable call", REPEATABLE, { errorCode: "ECONNRESET" }, true],
    ["a closed socket on a repeatable call", REPEATABLE, { errorCode: "UND_ERR_SOCKET" }, true],
    ["a refused connection", REPEATABLE, { errorCode: "ECONNREFUSED" }, true],
    ["a headers timeout", REPEATABLE, { errorCode: "UND_ERR_HEADERS_TIMEOUT" }, true],
    ["an unknown network error", REPEATABLE, { errorCode: "EWHATEVER" }, false],
    ["a network error without a code", REPEATABLE, {}, false],
    ["429 on create", CREATE_ONLY_WHEN_REFUSED, { status: 429 }, true],
    ["503 on create", CREATE_ONLY_WHEN_REFUSED, { status: 503 }, true],
    ["500 on create", CREATE_ONLY_WHEN_REFUSED, { status: 500 }, false],
    ["502 on create", CREATE_ONLY_WHEN_REFUSED, { status: 502 }, false],
    ["504 on create", CREATE_ONLY_WHEN_REFUSED, { status: 504 }, false],
    ["400 on create", CREATE_ONLY_WHEN_REFUSED, { status: 400 }, false],
    ["a reset on create", CREATE_ONLY_WHEN_REFUSED, { errorCode: "ECONNRESET" }, false],
    ["a closed socket on create", CREATE_ONLY_WHEN_REFUSED, { errorCode: "UND_ERR_SOCKET" }, false],
    [
      "a timeout on create",
      CREATE_ONLY_WHEN_REFUSED,
      { errorCode: "UND_ERR_HEADERS_TIMEOUT" },
      false,
    ],
  ];

  const rows = cases.map(([name, policy, failure, retried]) => ({
    name,
    policy,
    failure,
    retried,
  }));
  it.each(rows)("$name: retried $retried", ({ policy, failure, retried }) => {
    expect(retryDelayMs(policy, 1, failure, NOW, low) !== undefined).toBe(retried);
  });

  it("gives up after maxRetries, whatever the failure", () => {
    const failure = { status: 503, retryAfter: "0" };

    expect([1, 2, 3, 4].map((n) => retryDelayMs(REPEATABLE, n, failure, NOW, low))).toEqual([
      0,
      0,
      0,
      undefined,
    ]);
  });
});

describe("retryDelayMs: how long to wait", () => {
  it("backs off exponentially with equal jitter, capped at maxDelayMs", () => {
    const policy: RetryPolicy = { ...REPEATABLE, maxRetries: 8 };
    const delays = (random: () => number) =>
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(policy, n, { status: 500 }, NOW, random));

    // Ceilings 250, 500, 1000, 2000, 4000, then capped at 5000; half fixed, half random.
    expect(delays(low)).toEqual([125, 250, 500, 1000, 2000, 2500, 2500, 2500]);
    expect(delays(high)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it.each<[string, string, number | undefined]>([
    ["seconds", "2", 2_000],
    ["zero seconds", "0", 0],
    ["an HTTP date", "Tue, 01 Dec 2026 10:00:07 GMT", 7_000],
    ["an HTTP date in the past", "Mon, 30 Nov 2026 10:00:00 GMT", 0],
    ["exactly the cap", "30", 30_000],
    ["seconds beyond the cap", "31", undefined],
    ["a date beyond the cap", "Tue, 01 Dec 2026 11:00:00 GMT", undefined],
  ])("honours Retry-After as %s (%s): %s ms", (_, retryAfter, ms) => {
    for (const random of [low, high]) {
      expect(retryDelayMs(REPEATABLE, 1, { status: 429, retryAfter }, NOW, random)).toBe(ms);
    }
  });

  it("falls back to backoff when Retry-After cannot be read", () => {
    expect(retryDelayMs(REPEATABLE, 2, { status: 503, retryAfter: "later" }, NOW, low)).toBe(250);
  });

  it("ignores Retry-After on a failure the policy does not retry", () => {
    expect(
      retryDelayMs(CREATE_ONLY_WHEN_REFUSED, 1, { status: 500, retryAfter: "0" }, NOW, low),
    ).toBeUndefined();
  });
});

describe("responseDetail", () => {
  it.each<[string, string | undefined, string, string | undefined]>([
    ["plain text", "text/plain", "Certificate x not found", "Certificate x not found"],
    ["collapsed whitespace", "text/plain", "  a\r\n\tb   c ", "a b c"],
    ["an empty body", "text/plain", "  \n", undefined],
    [
      "an HTML page by content type",
      "text/html; charset=utf-8",
      "<html><head><title> 502 Bad Gateway </title></head><body><h1>nginx</h1></body></html>",
      'HTML page "502 Bad Gateway"',
    ],
    [
      "an HTML page sent as text/plain",
      "text/plain",
      "<!DOCTYPE html><html><head><TITLE>Service Unavailable</TITLE></head></html>",
      'HTML page "Service Unavailable"',
    ],
    [
      "an HTML page without a title",
      "text/html",
      "<html><body>x</body></html>",
      "HTML page without a title",
    ],
  ])("keeps %s", (_, contentType, text, detail) => {
    expect(responseDetail(text, contentType)).toBe(detail);
  });

  it("shortens long text to 300 characters", () => {
    const detail = responseDetail("x".repeat(1000), "text/plain");

    expect(detail).toBe(`${"x".repeat(300)}…`);
  });

  it("redacts registered secrets and anything shaped like a bearer token or JWT", () => {
    registerSecret("registered-secret-value");

    const detail = responseDetail(
      "refused registered-secret-value; Authorization: Bearer abc.def-ghi; jwt eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.sig",
      "text/plain",
    );

    expect(detail).toBe(`refused ${REDACTED}; Authorization: Bearer ${REDACTED}; jwt ${REDACTED}`);
  });
});
