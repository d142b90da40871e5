import { z } from "zod";
import { parseRenewalInfo, type RenewalInfo } from "../../core/ari/renewalInfo.js";
import { isCertschedError, UpstreamError } from "../../lib/errors.js";
import type { InboundResponse } from "../../lib/http/attempt.js";
import { responseDetail } from "../../lib/http/responseDetail.js";

/**
 * Pure mappers from a CA's answers to ARI's outcomes (RFC 9773 with RFC 8555's directory), so
 * the client reads top to bottom and each rule is tested on its own.
 */

/** Why the CA's word could not be had: each a value, never a throw. */
export type AriFailureReason =
  /** No connection, a reset, or no answer in time. */
  | "unreachable"
  /** The CA answered with a status other than 200 (404: it does not know the certificate). */
  | "refused"
  /** A 200 whose body is not what the RFC says (or is too large). */
  | "bad-answer"
  /** The directory names no renewalInfo: this CA does not offer ARI. */
  | "not-offered";

export interface AriFailure {
  readonly reason: AriFailureReason;
  /** For a log line and the dashboard: what happened, with the CA's own detail. */
  readonly detail: string;
  readonly status?: number | undefined;
  /** The CA's Retry-After, if it sent one. */
  readonly retryAfter?: string | undefined;
}

/** The renewalInfo URL a directory names; an http(s)-less or absent one is "not-offered". */
const directorySchema = z.object({ renewalInfo: z.string().max(2048).optional() }).loose();

/** The renewalInfo base URL from a directory answer, or why there is none. */
export function renewalInfoUrlOf(response: InboundResponse): string | AriFailure {
  if (response.status !== 200) return refused("the ACME directory", response);
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    return { reason: "bad-answer", detail: "the ACME directory is not JSON", status: 200 };
  }
  const parsed = directorySchema.safeParse(json);
  if (!parsed.success) {
    return { reason: "bad-answer", detail: "the ACME directory is not an object", status: 200 };
  }
  const text = parsed.data.renewalInfo;
  if (text === undefined) {
    return {
      reason: "not-offered",
      detail: "the ACME directory names no renewalInfo: this CA does not offer ARI",
      status: 200,
    };
  }
  try {
    const url = new URL(text);
    if (url.protocol === "https:") return url.href.replace(/\/+$/, "");
  } catch {
    // Falls through to the answer below.
  }
  return {
    reason: "bad-answer",
    detail: "the directory's renewalInfo is not an https URL",
    status: 200,
  };
}

/** The window from a renewalInfo answer, or why there is none. */
export function renewalInfoOf(response: InboundResponse): RenewalInfo | AriFailure {
  if (response.status !== 200) return refused("renewalInfo", response);
  const parsed = parseRenewalInfo(response.text);
  if ("problem" in parsed) {
    return { reason: "bad-answer", detail: `renewalInfo: ${parsed.problem}`, status: 200 };
  }
  return parsed;
}

function refused(what: string, response: InboundResponse): AriFailure {
  const detail = problemDetail(response);
  return {
    reason: "refused",
    detail: `${what} answered ${response.status}${detail ? `: ${detail}` : ""}`,
    status: response.status,
    retryAfter: response.retryAfter,
  };
}

/** An ACME problem document's `detail` (RFC 8555 6.7), else the body as plain text. */
function problemDetail(response: InboundResponse): string | undefined {
  try {
    const json = JSON.parse(response.text) as { detail?: unknown };
    if (typeof json.detail === "string") return responseDetail(json.detail, "text/plain");
  } catch {
    // Not JSON: the text as it is.
  }
  return responseDetail(response.text, response.contentType);
}

/** A thrown transport failure, as an outcome (bad-answer for a body over the bound). */
export function transportFailure(what: string, error: unknown): AriFailure {
  if (error instanceof UpstreamError && error.code === "UPSTREAM_BAD_RESPONSE") {
    return { reason: "bad-answer", detail: `${what}: ${error.message}` };
  }
  const message = isCertschedError(error) ? error.message : String(error);
  return { reason: "unreachable", detail: `${what}: ${message}` };
}
