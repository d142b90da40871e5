import { describe, expect, it } from "vitest";
import { CertschedError } from "../../../../shared/lib/errors/family.js";
import { ConfigError } from "../../../../shared/lib/errors/input.js";
import {
  checkWith,
  OutcomeUnknownError,
  TokenError,
  UpstreamError,
  upstreamOf,
} from "../../../../shared/lib/errors/upstream.js";

describe("UpstreamError", () => {
  it("carries the upstream, status and detail; not retriable unless said", () => {
    const cause = new Error("socket");
    const error = new UpstreamError("UPSTREAM_FAILED", "renew", "renew: 503", {
      status: 503,
      detail: "busy",
      retriable: true,
      cause,
    });
    expect(error).toBeInstanceOf(CertschedError);
    expect(error).toMatchObject({
      name: "UpstreamError",
      code: "UPSTREAM_FAILED",
      fault: "upstream",
      upstream: "renew",
      status: 503,
      detail: "busy",
      retriable: true,
    });
    expect(error.cause).toBe(cause);
    const bare = new UpstreamError("UPSTREAM_UNREACHABLE", "list", "m");
    expect(bare).toMatchObject({ retriable: false, status: undefined, detail: undefined });
    expect(bare.cause).toBeUndefined();
  });
});

describe("TokenError", () => {
  it("carries the resource, AADSTS code and status", () => {
    const error = new TokenError("TOKEN_REFUSED", "AADSTS7000215: invalid secret", {
      resource: "https://vault.azure.net",
      aadsts: 7000215,
      status: 401,
    });
    expect(error).toMatchObject({
      name: "TokenError",
      code: "TOKEN_REFUSED",
      fault: "upstream",
      resource: "https://vault.azure.net",
      aadsts: 7000215,
      status: 401,
      retriable: false,
    });
  });
});

describe("checkWith", () => {
  it("names the CLI command and the route, the name encoded in the route", () => {
    expect(checkWith("a b/c")).toBe(
      "unknown: check with certsched get a b/c (GET /api/certificates/a%20b%2Fc) in a few minutes",
    );
  });
});

describe("OutcomeUnknownError", () => {
  const timeout = new UpstreamError("UPSTREAM_TIMEOUT", "renew", "no answer in 30 s");

  it("is a 504-style timeout of the operation, saying how to find out", () => {
    const error = new OutcomeUnknownError("renew", "web", "Get Certificate failed", timeout);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({
      name: "OutcomeUnknownError",
      code: "UPSTREAM_TIMEOUT",
      upstream: "renew",
      certificateName: "web",
      retriable: false,
    });
    expect(error.cause).toBe(timeout);
    expect(error.message).toBe(
      `Renewal of web: the service did not answer in time (no answer in 30 s), and Get Certificate failed: it may still have been scheduled; ${checkWith("web")}`,
    );
  });

  it("a creation says so", () => {
    const error = new OutcomeUnknownError("create", "web", "why", timeout);
    expect(error.upstream).toBe("create");
    expect(error.message.startsWith("Creation of web:")).toBe(true);
  });
});

describe("upstreamOf", () => {
  it("tells the upstream and status of an UpstreamError or TokenError, nothing else", () => {
    expect(upstreamOf(new UpstreamError("UPSTREAM_FAILED", "list", "m", { status: 500 }))).toEqual({
      upstream: "list",
      status: 500,
    });
    expect(
      upstreamOf(new TokenError("TOKEN_UNAVAILABLE", "m", { resource: "r", status: 503 })),
    ).toEqual({ upstream: "token", status: 503 });
    expect(upstreamOf(new ConfigError([]))).toEqual({ upstream: undefined, status: undefined });
  });
});
