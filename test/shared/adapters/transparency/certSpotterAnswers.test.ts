import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AnswerContext,
  type CertSpotterResponse,
  issuancePageOf,
  MAX_RETRY_AFTER_MS,
  rateLimitWaitMs,
  transportFailure,
} from "../../../../shared/adapters/transparency/certSpotterAnswers.js";
import { UpstreamError } from "../../../../shared/lib/errors.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/** Cert Spotter's answers mapped to the log watcher's outcomes, one rule at a time. */

const KEY = "ctk_live_5f0c1a9e7b3d42c8a6e1f09b";
const NOW = Date.parse("2026-12-02T12:00:00Z");
const context: AnswerContext = {
  maxPageIssuances: 3,
  apiKey: KEY,
  url: "https://api.certspotter.com/v1/issuances?domain=example.org",
  now: NOW,
};
const answer = (status: number, body: unknown, extra: Partial<CertSpotterResponse> = {}) => ({
  status,
  contentType: "application/json",
  text: typeof body === "string" ? body : JSON.stringify(body),
  ...extra,
});
const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(1000 + i) }));

describe("issuancePageOf: a 200 with a list", () => {
  it("[] is the end: no issuances, no lastId", () => {
    expect(issuancePageOf(answer(200, []), context)).toEqual({
      kind: "page",
      issuances: [],
      lastId: undefined,
      truncated: false,
      problems: [],
    });
  });

  it("exactly maxPageIssuances entries: all kept, not truncated; one more: truncated at the last kept", () => {
    const whole = issuancePageOf(answer(200, ids(3)), context);
    expect(whole).toMatchObject({ kind: "page", lastId: "1002", truncated: false });
    const over = issuancePageOf(answer(200, ids(4)), context);
    expect(over).toMatchObject({ kind: "page", lastId: "1002", truncated: true });
    expect(over.kind === "page" && over.issuances.map((i) => i.id)).toEqual([
      "1000",
      "1001",
      "1002",
    ]);
  });

  it("entries without a readable id are left out and said; lastId is the last readable one", () => {
    const page = issuancePageOf(answer(200, [{ id: "1" }, { id: "x y" }, null]), context);
    expect(page).toMatchObject({
      kind: "page",
      lastId: "1",
      truncated: false,
      problems: [
        "entry 2 has no id of 1 to 40 characters [0-9A-Za-z_-]",
        "entry 3 is not an object",
      ],
    });
  });

  it("a page of junk: ten entries named, the rest counted", () => {
    const page = issuancePageOf(answer(200, Array(50).fill(0)), {
      ...context,
      maxPageIssuances: 50,
    });
    expect(page.kind === "page" && page.problems).toHaveLength(11);
    expect(page).toMatchObject({
      lastId: undefined,
      problems: expect.arrayContaining(["and 40 more entries left out"]),
    });
  });

  it.each([
    ["<!doctype html><html><title>Welcome</title></html>", 'with HTML page "Welcome"'],
    ['{"issuances":[]}', "with a JSON object"],
    ["null", "with null"],
    ['"[]"', "with a JSON string"],
    ["not json", "with a body that is not JSON"],
  ])("%s is a bad answer", (body, words) => {
    expect(issuancePageOf(answer(200, body), context)).toEqual({
      kind: "failed",
      reason: "bad-answer",
      status: 200,
      detail: `Cert Spotter answered 200 ${words}, not a list of issuances`,
    });
  });
});

describe("issuancePageOf: statuses", () => {
  it("401 and 403: unauthorized, with the API's words and never the key it echoes", () => {
    const echo = {
      code: "unauthorized",
      message: `Invalid key ${KEY} (Authorization: Bearer ${KEY})`,
    };
    for (const status of [401, 403]) {
      const failure = issuancePageOf(answer(status, echo), context);
      expect(failure).toMatchObject({ kind: "failed", reason: "unauthorized", status });
      expect(JSON.stringify(failure)).not.toContain(KEY);
      expect(JSON.stringify(failure)).not.toContain(KEY.slice(0, 16));
      expect(failure.kind === "failed" && failure.detail).toContain("it refused the API key");
    }
    const anonymous = issuancePageOf(answer(401, "no"), { ...context, apiKey: undefined });
    expect(anonymous).toMatchObject({
      detail: "Cert Spotter answered 401: no (it refused a request without an API key)",
    });
  });

  it("a key echoed in base64 or URL-encoded is cut out too", () => {
    const text = `seen ${Buffer.from(KEY).toString("base64")} and ${encodeURIComponent(`Bearer ${KEY}`)}`;
    const failure = issuancePageOf(answer(500, text, { contentType: "text/plain" }), context);
    expect(failure).toMatchObject({
      reason: "refused",
      detail: expect.stringContaining("[REDACTED]"),
    });
    expect(JSON.stringify(failure)).not.toContain(Buffer.from(KEY).toString("base64").slice(0, 20));
    expect(JSON.stringify(failure)).not.toContain(KEY.slice(0, 16));
  });

  it("429: rate-limited, waiting what Retry-After says, clamped to [1 s, 24 h]; an hour without one", () => {
    const limited = (retryAfter?: string) =>
      issuancePageOf(
        answer(
          429,
          { code: "rate_limited", message: "You have exceeded the rate limit" },
          { retryAfter },
        ),
        context,
      );
    expect(limited("120")).toEqual({
      kind: "failed",
      reason: "rate-limited",
      status: 429,
      retryAfterMs: 120_000,
      detail:
        "Cert Spotter answered 429: rate_limited: You have exceeded the rate limit (asking again in 120 s)",
    });
    expect(limited("999999999")).toMatchObject({ retryAfterMs: MAX_RETRY_AFTER_MS });
    expect(limited(undefined)).toMatchObject({ retryAfterMs: 3_600_000 });
    expect(limited("soon")).toMatchObject({ retryAfterMs: 3_600_000 });
    expect(limited("0")).toMatchObject({ retryAfterMs: 1_000 });
    expect(limited("Wed, 02 Dec 2026 12:30:00 GMT")).toMatchObject({ retryAfterMs: 1_800_000 });
    expect(limited("Wed, 02 Dec 2026 11:00:00 GMT")).toMatchObject({ retryAfterMs: 1_000 });
  });

  it("rateLimitWaitMs: the edges of the clamp", () => {
    expect(rateLimitWaitMs("1", NOW)).toBe(1_000);
    expect(rateLimitWaitMs("86400", NOW)).toBe(86_400_000);
    expect(rateLimitWaitMs("86401", NOW)).toBe(86_400_000);
    expect(rateLimitWaitMs(`${"9".repeat(400)}`, NOW)).toBe(86_400_000);
  });

  it("3xx: bad-answer naming the host it pointed to (not its query), never followed", () => {
    const moved = issuancePageOf(
      answer(302, "", { location: `https://evil.example:8443/steal?key=${KEY}` }),
      context,
    );
    expect(moved).toEqual({
      kind: "failed",
      reason: "bad-answer",
      status: 302,
      detail: "Cert Spotter answered 302, redirected to evil.example:8443 (not followed)",
    });
    expect(issuancePageOf(answer(301, "", { location: "/v2/issuances" }), context)).toMatchObject({
      detail: "Cert Spotter answered 301, redirected to api.certspotter.com (not followed)",
    });
    expect(issuancePageOf(answer(307, ""), context)).toMatchObject({
      detail: "Cert Spotter answered 307, redirected to an address it did not give (not followed)",
    });
  });

  it("other statuses: refused, with the API's code and message escaped and bounded", () => {
    const failure = issuancePageOf(
      answer(400, {
        code: "bad_domain",
        message: `not a registered domain\u001b[2J\u202e${"x".repeat(5000)}`,
      }),
      context,
    );
    expect(failure).toMatchObject({ kind: "failed", reason: "refused", status: 400 });
    const detail = failure.kind === "failed" ? failure.detail : "";
    expect(
      detail.startsWith(
        "Cert Spotter answered 400: bad_domain: not a registered domain\\u{1b}[2J\\u{202e}x",
      ),
    ).toBe(true);
    expect(detail.length).toBeLessThanOrEqual(400);
    expect(detail).not.toContain("\u001b");
    expect(detail).not.toContain("\u202e");
    expect(
      issuancePageOf(
        answer(503, "<html><title>Down</title></html>", { contentType: "text/html" }),
        context,
      ),
    ).toMatchObject({
      reason: "refused",
      detail: 'Cert Spotter answered 503: HTML page "Down"',
    });
  });
});

describe("transportFailure", () => {
  it("a body over the bound is bad-answer; anything else unreachable; never the key", () => {
    const big = new UpstreamError(
      "UPSTREAM_BAD_RESPONSE",
      "ct",
      "ct: response larger than 16 bytes, the most certsched reads from it",
    );
    expect(transportFailure(big, KEY)).toEqual({
      kind: "failed",
      reason: "bad-answer",
      detail: "ct: response larger than 16 bytes, the most certsched reads from it",
    });
    expect(transportFailure(new Error(`invalid header Bearer ${KEY}`), KEY)).toEqual({
      kind: "failed",
      reason: "unreachable",
      detail: "Error: invalid header Bearer [REDACTED]",
    });
  });
});

describe("issuancePageOf: the key never comes back (property)", () => {
  it("whatever the status and wherever the body puts the key, raw, in JSON or base64", () => {
    const forms = [KEY, JSON.stringify({ message: KEY }), Buffer.from(KEY).toString("base64")];
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.string({ maxLength: 200 }),
        fc.constantFrom(...forms),
        fc.string({ maxLength: 200 }),
        fc.constantFrom("application/json", "text/plain", "text/html", undefined),
        (status, before, form, after, contentType) => {
          const outcomes = [
            issuancePageOf({ status, contentType, text: `${before}${form}${after}` }, context),
            issuancePageOf(
              answer(status, { code: before, message: `${before}${KEY}${after}` }),
              context,
            ),
          ];
          for (const outcome of outcomes) {
            const text = JSON.stringify(outcome);
            expect(text).not.toContain(KEY.slice(0, 16));
            expect(text).not.toContain(KEY.slice(-16));
          }
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});
