import { describe, expect, it } from "vitest";
import { UpstreamError } from "../../../../shared/lib/errors.js";
import {
  codeOf,
  MAX_RESPONSE_BYTES,
  NOT_SENT_CODES,
  networkError,
} from "../../../../shared/lib/http/attempt.js";

const coded = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe("codeOf", () => {
  it("the error's code, else UNKNOWN", () => {
    expect(codeOf(coded("ECONNRESET"))).toBe("ECONNRESET");
    expect(codeOf(new Error("x"))).toBe("UNKNOWN");
    expect(codeOf(null)).toBe("UNKNOWN");
    expect(codeOf(undefined)).toBe("UNKNOWN");
  });
});

describe("NOT_SENT_CODES", () => {
  it("holds the failures before a request is written, not those after", () => {
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]) {
      expect(NOT_SENT_CODES.has(code)).toBe(true);
    }
    for (const code of ["ECONNRESET", "UND_ERR_SOCKET", "UND_ERR_HEADERS_TIMEOUT", "EPIPE"]) {
      expect(NOT_SENT_CODES.has(code)).toBe(false);
    }
  });
});

describe("networkError", () => {
  it("returns an UpstreamError as it is", () => {
    const given = new UpstreamError("UPSTREAM_FAILED", "list", "m");
    expect(networkError("renew", given, 1000)).toBe(given);
  });

  it.each([
    ["UND_ERR_HEADERS_TIMEOUT", "no response headers"],
    ["ETIMEDOUT", "no response headers"],
    ["ABORT_ERR", "no response headers"],
    ["UND_ERR_BODY_TIMEOUT", "the body did not arrive in full"],
    ["UND_ERR_CONNECT_TIMEOUT", "no connection"],
  ])("%s is a retriable timeout saying what did not come", (code, what) => {
    const cause = coded(code);
    const error = networkError("list", cause, 30_000);
    expect(error).toMatchObject({
      code: "UPSTREAM_TIMEOUT",
      upstream: "list",
      retriable: true,
      message: `list: no answer within the timeout (${what} within 30000 ms)`,
    });
    expect(error.cause).toBe(cause);
  });

  it("a response over the cap is a bad response, not retried", () => {
    expect(MAX_RESPONSE_BYTES).toBe(12 * 1024 * 1024);
    expect(networkError("list", coded("CERTSCHED_TOO_LARGE"), 1000)).toMatchObject({
      code: "UPSTREAM_BAD_RESPONSE",
      upstream: "list",
      retriable: false,
      message: `list: response larger than ${MAX_RESPONSE_BYTES} bytes (12 MiB), the most certsched reads`,
    });
  });

  it("anything else is unreachable and retriable, naming the cause", () => {
    expect(networkError("renew", coded("ECONNREFUSED"), 1000)).toMatchObject({
      code: "UPSTREAM_UNREACHABLE",
      retriable: true,
      message: "renew: cannot reach the service (ECONNREFUSED)",
    });
    expect(networkError("renew", coded("UND_ERR_SOCKET"), 1000).message).toBe(
      "renew: cannot reach the service (connection closed by the other side)",
    );
    expect(networkError("get", "not an error", 1000).message).toBe(
      "get: cannot reach the service (UNKNOWN)",
    );
  });
});
