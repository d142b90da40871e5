import { z } from "zod";
import type {
  IssuancePage,
  WatcherFailure,
  WatcherFailureReason,
} from "../../core/ports/transparency.js";
import type { Issuance } from "../../core/transparency/issuance.js";
import { isCertschedError, UpstreamError } from "../../lib/errors.js";
import type { InboundResponse } from "../../lib/http/attempt.js";
import { responseDetail } from "../../lib/http/responseDetail.js";
import { retryAfterMs } from "../../lib/http/retryPolicy.js";
import { redact, redactValue } from "../../lib/redact/redact.js";
import { MAX_DETAIL } from "../../lib/text/boundDetail.js";
import { HOUR_MS, SECOND_MS } from "../../lib/time.js";
import { issuanceOf, shownText } from "./certSpotterIssuance.js";

/**
 * Pure mappers from Cert Spotter's answers (GET /v1/issuances) to the log watcher's outcomes:
 * a page of issuances, or a failure whose detail is redacted (the API key in every form, and
 * anything after "Bearer"), escaped and bounded. Every answer is untrusted.
 */

/** Entries kept from one answer by default; the rest are asked for again after the last id kept. */
export const DEFAULT_MAX_PAGE_ISSUANCES = 1000;

/** Without a readable Retry-After, a 429 waits an hour (the API's allowances are hourly). */
export const DEFAULT_RETRY_AFTER_MS = HOUR_MS;
/** Bounds of a 429's wait: a second at least, a day at most, whatever the header says. */
export const MIN_RETRY_AFTER_MS = SECOND_MS;
export const MAX_RETRY_AFTER_MS = 24 * HOUR_MS;

/** Longest failure detail, in characters after escaping. */
const MAX_FAILURE_DETAIL = 300;
/** Entries left out named one by one; beyond, they are counted. */
const MAX_LEFT_OUT_NAMED = 10;

/** The answer as the mappers read it: InboundResponse, and the Location of a redirect if known. */
export type CertSpotterResponse = InboundResponse & { readonly location?: string | undefined };

export interface AnswerContext {
  /** Entries kept from one answer (see DEFAULT_MAX_PAGE_ISSUANCES). */
  readonly maxPageIssuances: number;
  /** The key the request carried: cut out of every detail, in every form; undefined: none. */
  readonly apiKey: string | undefined;
  /** The address asked, to resolve a relative Location against. */
  readonly url: string;
  /** Wall-clock milliseconds, for a Retry-After date. */
  readonly now: number;
}

const pageSchema = z.array(z.unknown());
const apiErrorSchema = z.looseObject({ code: z.string().optional(), message: z.string() });

/** Cert Spotter's answer as a page of issuances, or why it is not one. */
export function issuancePageOf(
  response: CertSpotterResponse,
  context: AnswerContext,
): IssuancePage | WatcherFailure {
  const { status } = response;
  if (status >= 200 && status < 300) return pageOf(response, context);
  if (status >= 300 && status < 400) {
    return failed("bad-answer", status, redirectDetail(response, context));
  }
  const said = apiDetail(response, context.apiKey);
  const words = `Cert Spotter answered ${status}${said ? `: ${said}` : ""}`;
  if (status === 401 || status === 403) {
    const key = context.apiKey === undefined ? "a request without an API key" : "the API key";
    return failed("unauthorized", status, `${words} (it refused ${key})`);
  }
  if (status === 429) {
    const waitMs = rateLimitWaitMs(response.retryAfter, context.now);
    return {
      ...failed("rate-limited", status, `${words} (asking again in ${waitMs / SECOND_MS} s)`),
      retryAfterMs: waitMs,
    };
  }
  return failed("refused", status, words);
}

/**
 * How long a 429 asks to wait: Retry-After as delta-seconds or an HTTP date (RFC 9110 10.2.3),
 * an hour when absent or unreadable, clamped to [1 s, 24 h].
 */
export function rateLimitWaitMs(header: string | undefined, now: number): number {
  const asked = retryAfterMs(header, now) ?? DEFAULT_RETRY_AFTER_MS;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, asked));
}

function pageOf(
  response: CertSpotterResponse,
  context: AnswerContext,
): IssuancePage | WatcherFailure {
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    const what = responseDetail(clean(response.text, context.apiKey), response.contentType);
    return notAList(response, what?.startsWith("HTML page") ? what : "a body that is not JSON");
  }
  const list = pageSchema.safeParse(json);
  if (!list.success) {
    return notAList(
      response,
      json === null ? "null" : `a JSON ${typeof json === "object" ? "object" : typeof json}`,
    );
  }
  const entries = list.data;
  const issuances: Issuance[] = [];
  const leftOut: string[] = [];
  for (const [index, entry] of entries.slice(0, context.maxPageIssuances).entries()) {
    const read = issuanceOf(entry, index);
    if ("leftOut" in read) leftOut.push(read.leftOut);
    else issuances.push(read);
  }
  return {
    kind: "page",
    issuances,
    lastId: issuances.at(-1)?.id,
    truncated: entries.length > context.maxPageIssuances,
    problems: boundedLeftOut(leftOut),
  };
}

function notAList(response: CertSpotterResponse, what: string): WatcherFailure {
  return failed(
    "bad-answer",
    response.status,
    `Cert Spotter answered ${response.status} with ${what}, not a list of issuances`,
  );
}

/** The first entries left out, named; the rest counted, so a page of junk is a few lines. */
function boundedLeftOut(leftOut: readonly string[]): string[] {
  if (leftOut.length <= MAX_LEFT_OUT_NAMED) return [...leftOut];
  const more = leftOut.length - MAX_LEFT_OUT_NAMED;
  return [...leftOut.slice(0, MAX_LEFT_OUT_NAMED), `and ${more} more entries left out`];
}

/** A redirect names where it pointed (the host only: a query may hold anything), never followed. */
function redirectDetail(response: CertSpotterResponse, context: AnswerContext): string {
  let host: string | undefined;
  try {
    if (response.location !== undefined) host = new URL(response.location, context.url).host;
  } catch {
    // An unreadable Location: said as such below.
  }
  const where =
    host === undefined || host === ""
      ? "an address it did not give"
      : shownText(clean(host, context.apiKey), 100);
  return `Cert Spotter answered ${response.status}, redirected to ${where} (not followed)`;
}

/** The API's own words: `{"code","message"}` (SSLMate's error object), else the body as text. */
function apiDetail(response: CertSpotterResponse, apiKey: string | undefined): string | undefined {
  let said: string | undefined;
  try {
    const error = apiErrorSchema.safeParse(JSON.parse(response.text));
    if (error.success) {
      const { code, message } = error.data;
      said = code === undefined ? message : `${code}: ${message}`;
    }
  } catch {
    // Not JSON: the text as it is, below.
  }
  // The key is cut out of the whole text first, so that no cut below can leave part of it.
  const text = clean(said ?? response.text, apiKey);
  const detail = responseDetail(text, said === undefined ? response.contentType : "text/plain");
  return detail === undefined ? undefined : shownText(detail, MAX_FAILURE_DETAIL);
}

/** `text` without the key, in any form, nor anything after "Bearer". */
function clean(text: string, apiKey: string | undefined): string {
  const without = apiKey === undefined ? text : redactValue(text, apiKey);
  return redact(without);
}

function failed(reason: WatcherFailureReason, status: number, detail: string): WatcherFailure {
  return { kind: "failed", reason, detail: shownText(detail, MAX_DETAIL), status };
}

/**
 * A thrown transport failure as a failure: a body over the bound is bad-answer, anything else
 * (no connection, a reset, no answer in time) unreachable. Never holds the key.
 */
export function transportFailure(error: unknown, apiKey: string | undefined): WatcherFailure {
  const message = isCertschedError(error) ? error.message : String(error);
  const detail = shownText(clean(message, apiKey), MAX_FAILURE_DETAIL);
  if (error instanceof UpstreamError && error.code === "UPSTREAM_BAD_RESPONSE") {
    return { kind: "failed", reason: "bad-answer", detail };
  }
  return { kind: "failed", reason: "unreachable", detail };
}
