import type { HttpResponseInit } from "@azure/functions";
import type { QuotaExhaustedError } from "../core/quota/budgetRules.js";
import {
  type CertschedError,
  ensureError,
  hasCode,
  isCertschedError,
  upstreamOf,
} from "../lib/errors.js";
import { redact } from "../lib/redact/redact.js";
import { problem } from "./problem.js";

/**
 * Maps any failure to a problem response. Our callers' mistakes are 4xx naming the field;
 * upstream refusals of *our* credentials are 502 (not the caller's fault); an unreachable or
 * slow upstream is 503/504. Messages are ours, redacted, and never carry a stack trace.
 */
export function errorResponse(error: unknown, invocationId: string): HttpResponseInit {
  const e = ensureError(error);
  if (!isCertschedError(e)) return internal(invocationId);
  if (e.fault === "caller") {
    const answer = callerProblem(e);
    if (answer) return answer;
  }
  if (hasCode(e, "CONFIG_INVALID")) {
    return problem(503, e.code, "certsched is not configured", e.message, { errors: e.problems });
  }
  const detail = redact(e.message);
  // Get Certificate's 404 is the service's word that it holds no certificate by that name.
  const { upstream, status } = upstreamOf(e);
  if (upstream === "get" && status === 404) {
    return problem(404, e.code, "No such certificate", detail);
  }
  switch (e.code) {
    case "USAGE":
    case "INPUT_INVALID":
    case "PORT_IN_USE":
    case "PORT_NOT_ALLOWED":
      // The CLI's own errors: never thrown under the host; one that were would be a bug of ours.
      return internal(invocationId);
    case "QUOTA_EXHAUSTED":
      // Nothing was sent: the request budget is spent or kept for renewals. Try again once the
      // oldest request of the window has left it (when known), else in an hour.
      return problem(429, e.code, quotaTitle(e), detail, {
        headers: { "retry-after": String(retryAfterSeconds(e)) },
      });
    case "UPSTREAM_REJECTED":
      return problem(422, e.code, "The service refused the request", detail);
    case "UPSTREAM_UNAUTHORIZED":
      return problem(502, e.code, "The service refused certsched's credentials", detail);
    case "TOKEN_REFUSED":
      return problem(502, e.code, "The identity provider refused certsched's credentials", detail);
    case "UPSTREAM_TIMEOUT":
      return problem(504, e.code, "The service did not answer in time", detail);
    case "UPSTREAM_UNREACHABLE":
    case "TOKEN_UNAVAILABLE":
    case "SECRET_UNAVAILABLE":
    case "LEDGER_UNAVAILABLE":
    case "INVENTORY_UNAVAILABLE":
    case "RUNS_UNAVAILABLE":
      return problem(503, e.code, "A dependency is unavailable", detail, {
        headers: { "retry-after": "60" },
      });
    default: {
      const busy = status === 429 || status === 503;
      return problem(
        busy ? 503 : 502,
        e.code,
        "The service failed",
        detail,
        busy ? { headers: { "retry-after": "60" } } : {},
      );
    }
  }
}

function internal(invocationId: string): HttpResponseInit {
  return problem(
    500,
    "INTERNAL",
    "Internal error",
    `certsched failed unexpectedly; see the function logs for invocation ${invocationId}`,
  );
}

/**
 * The caller's mistakes: 413, 415, 400 naming the fields, 403 naming the role. Undefined for a
 * caller's fault the HTTP edge does not answer (the CLI's usage and input errors).
 */
function callerProblem(e: CertschedError): HttpResponseInit | undefined {
  if (hasCode(e, "PAYLOAD_TOO_LARGE")) {
    return problem(413, e.code, "Request body too large", e.message);
  }
  if (hasCode(e, "UNSUPPORTED_MEDIA_TYPE")) {
    return problem(415, e.code, "Unsupported media type", e.message);
  }
  if (hasCode(e, "VALIDATION_FAILED")) {
    return problem(400, e.code, "Invalid request", redact(e.message), { errors: e.issues });
  }
  if (hasCode(e, "FORBIDDEN")) {
    return problem(403, e.code, "Forbidden", e.message, {
      errors: [{ name: "role", message: `${e.requiredRole} required` }],
    });
  }
  return undefined;
}

/** What QUOTA_EXHAUSTED carries (QuotaExhaustedError, in core), read by code, not by class. */
type QuotaFields = Partial<Pick<QuotaExhaustedError, "purpose" | "usage">>;

/** Seconds until the budget's oldest request leaves the window: at least 1, at most a day. */
function retryAfterSeconds(error: CertschedError & QuotaFields): number {
  const ms = error.usage?.freesInMs;
  if (ms === undefined) return 3600;
  return Math.min(86_400, Math.max(1, Math.ceil(ms / 1000)));
}

/**
 * The 429's title, true to its cause: a read held back while renewals may still use the rest,
 * or a budget with nothing left (a renewal, a create: then nothing is "kept for renewals").
 */
function quotaTitle(error: CertschedError & QuotaFields): string {
  const kept =
    error.purpose === "read" &&
    error.usage !== undefined &&
    error.usage.used < error.usage.quota.requests;
  return kept
    ? "The service's request budget is kept for renewals"
    : "The service's request budget is spent";
}
