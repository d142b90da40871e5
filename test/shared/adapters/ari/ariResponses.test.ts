import { describe, expect, it } from "vitest";
import {
  renewalInfoOf,
  renewalInfoUrlOf,
  transportFailure,
} from "../../../../shared/adapters/ari/ariResponses.js";
import { UpstreamError } from "../../../../shared/lib/errors.js";

/** A CA's answers mapped to ARI's outcomes, one rule at a time. */

const ok = (body: unknown, extra: object = {}) => ({
  status: 200,
  contentType: "application/json",
  text: typeof body === "string" ? body : JSON.stringify(body),
  ...extra,
});

describe("renewalInfoUrlOf (the ACME directory)", () => {
  it("reads renewalInfo, without a trailing slash", () => {
    expect(renewalInfoUrlOf(ok({ renewalInfo: "https://ca.example/ari/", newOrder: "x" }))).toBe(
      "https://ca.example/ari",
    );
  });

  it.each([
    [ok({ newOrder: "https://ca.example/new-order" }), "not-offered"],
    [ok({ renewalInfo: "http://ca.example/ari" }), "bad-answer"],
    [ok({ renewalInfo: "not a url" }), "bad-answer"],
    [ok({ renewalInfo: 5 }), "bad-answer"],
    [ok("<html>"), "bad-answer"],
    [ok("[]"), "bad-answer"],
    [{ status: 503, contentType: "text/plain", text: "down", retryAfter: "120" }, "refused"],
  ])("%j: %s", (response, reason) => {
    expect(renewalInfoUrlOf(response)).toMatchObject({ reason });
  });

  it("a refusal keeps the status, the CA's Retry-After and its problem detail", () => {
    expect(
      renewalInfoUrlOf({
        status: 503,
        contentType: "application/problem+json",
        text: JSON.stringify({
          type: "urn:ietf:params:acme:error:rateLimited",
          detail: "slow down",
        }),
        retryAfter: "120",
      }),
    ).toEqual({
      reason: "refused",
      status: 503,
      retryAfter: "120",
      detail: "the ACME directory answered 503: slow down",
    });
  });
});

describe("renewalInfoOf", () => {
  it("a 200 with a window is the window; anything else says why", () => {
    expect(
      renewalInfoOf(
        ok({ suggestedWindow: { start: "2026-01-01T00:00:00Z", end: "2026-01-02T00:00:00Z" } }),
      ),
    ).toEqual({
      start: new Date("2026-01-01T00:00:00Z"),
      end: new Date("2026-01-02T00:00:00Z"),
      explanationUrl: undefined,
    });
    expect(renewalInfoOf(ok({}))).toMatchObject({ reason: "bad-answer" });
    expect(
      renewalInfoOf({ status: 502, contentType: "text/html", text: "<title>Bad Gateway</title>" }),
    ).toMatchObject({
      reason: "refused",
      detail: 'renewalInfo answered 502: HTML page "Bad Gateway"',
    });
  });
});

describe("transportFailure", () => {
  it("a body over the bound is a bad answer; any other failure is unreachable", () => {
    expect(
      transportFailure(
        "renewalInfo",
        new UpstreamError("UPSTREAM_BAD_RESPONSE", "ari", "ari: too big"),
      ),
    ).toEqual({ reason: "bad-answer", detail: "renewalInfo: ari: too big" });
    expect(
      transportFailure(
        "renewalInfo",
        new UpstreamError("UPSTREAM_TIMEOUT", "ari", "ari: no answer"),
      ),
    ).toEqual({ reason: "unreachable", detail: "renewalInfo: ari: no answer" });
    expect(transportFailure("ARI", new Error("boom"))).toEqual({
      reason: "unreachable",
      detail: "ARI: Error: boom",
    });
  });
});
