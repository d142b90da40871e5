import type { Readable } from "node:stream";
import type { Agent } from "undici";
import { UpstreamError, type UpstreamName } from "../errors.js";
import type { Undici } from "./undiciCore.js";

/**
 * One attempt of an outbound call (httpClient.ts runs the retry loop around it): the exchange
 * cut at its timeout, the body read up to MAX_RESPONSE_BYTES, and a transport failure mapped to
 * an UpstreamError that says whether the request may have reached the upstream.
 */

/** What came back, after any retries. Non-2xx statuses are returned, not thrown. */
export interface InboundResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
  /** The Retry-After header as sent (seconds or an HTTP date), on any status: ARI reads it on 200. */
  readonly retryAfter?: string | undefined;
  /** The Location header of a 3xx (never followed): a failure can name where it pointed. */
  readonly location?: string | undefined;
}

/**
 * Response bodies larger than this are refused (UPSTREAM_BAD_RESPONSE), so the list's size and
 * the memory it takes agree. 12 MiB holds about 63,000 of the smallest records the schema accepts,
 * or some 23,000 of the shape the service sends (nulls included). Listing that many peaks near
 * 165 MiB of RSS, well under half of the smallest instance infra allows (instanceMemoryMB 512):
 * docs/performance.md, "Peak RSS at the list's size cap". At 16 MiB the peak already reached
 * 241 MiB in some runs (garbage collection timing), too close to that line; the former 64 MiB
 * let a 336,000-record list take 784 MB of heap. Parsing record by record would not be enough on
 * its own: the validated records hold most of that memory.
 */
export const MAX_RESPONSE_BYTES = 12 * 1024 * 1024;

/** Why an attempt was cut short by its deadline: before the headers came, or during the body. */
type Cut = "headers" | "body";

export interface Outcome {
  readonly response?: InboundResponse;
  readonly retryAfter?: string | undefined;
  readonly error?: unknown;
  /** The `sending` hook rejected: the last byte was held back, the request never left whole. */
  readonly held?: { readonly error: unknown };
}

/**
 * The body as undici writes it: everything but the last byte once the connection takes it (the
 * `sending` hook is called then), the last byte only once the hook's promise has resolved. A
 * rejection, or the attempt's abort, ends the body short: undici destroys the connection, and
 * the upstream, still waiting for the length it was promised, never sees a complete request.
 */
function heldBody(
  bytes: Buffer,
  sending: () => Promise<void>,
  signal: AbortSignal,
  held: { error?: unknown; refused: boolean },
): AsyncIterable<Buffer> {
  return {
    async *[Symbol.asyncIterator]() {
      const pending = sending().then(
        () => undefined,
        (error: unknown) => {
          held.refused = true;
          held.error = error;
        },
      );
      yield bytes.subarray(0, bytes.length - 1);
      await pending;
      if (held.refused) throw held.error;
      if (signal.aborted) throw new Error("aborted before the last byte");
      yield bytes.subarray(bytes.length - 1);
    },
  };
}

/**
 * One exchange, cut at `timeoutMs`. Never throws: a transport failure is returned as `error`, a
 * cut-short attempt as an error whose code says whether the request may have been sent (see
 * SENT_TIMEOUT_CODES in retryPolicy.ts).
 */
export async function attempt(
  lib: Undici,
  agent: Agent,
  req: {
    readonly url: string;
    readonly method?: "GET" | "POST" | undefined;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
    readonly maxResponseBytes?: number | undefined;
    readonly sending?: (() => Promise<void>) | undefined;
  },
  timeoutMs: number,
): Promise<Outcome> {
  const bytes = Buffer.from(req.body);
  const hold = req.sending !== undefined && req.method !== "GET" && bytes.length > 0;
  if (req.sending !== undefined && !hold) {
    // No body byte to hold back (a GET, an empty body): the hook runs before the request is
    // written instead, so a caller still learns "about to leave" before anything leaves; a
    // rejection means nothing was sent.
    try {
      await req.sending();
    } catch (error) {
      return { held: { error } };
    }
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let cut: Cut = "headers";
  const held = { refused: false } as { error?: unknown; refused: boolean };
  try {
    const res = await lib.request(req.url, {
      method: req.method ?? "POST",
      headers: hold ? { ...req.headers, "content-length": String(bytes.length) } : req.headers,
      body:
        req.method === "GET"
          ? null
          : hold && req.sending
            ? // undici writes any async iterable (its dispatch docs); request()'s types omit it.
              (heldBody(bytes, req.sending, controller.signal, held) as unknown as Readable)
            : req.body,
      signal: controller.signal,
      // The agent's own timeouts are the client's; a request with a longer one of its own
      // (create, renew) must not be cut by them first.
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // No redirect interceptor: a 3xx is returned as it is, never followed, since
      // following it could hand our tokens to another host.
      dispatcher: agent,
    });
    cut = "body";
    const text = await readCapped(res.body, req.maxResponseBytes ?? MAX_RESPONSE_BYTES);
    const contentType = res.headers["content-type"];
    const header = res.headers["retry-after"];
    const retryAfter = Array.isArray(header) ? header[0] : header;
    const redirect =
      res.statusCode >= 300 && res.statusCode < 400 ? res.headers.location : undefined;
    const location = Array.isArray(redirect) ? redirect[0] : redirect;
    return {
      response: {
        status: res.statusCode,
        contentType: Array.isArray(contentType) ? contentType[0] : contentType,
        text,
        retryAfter,
        ...(location === undefined ? {} : { location }),
      },
      retryAfter,
    };
  } catch (error) {
    if (held.refused) return { held: { error: held.error } };
    if (!controller.signal.aborted) return { error };
    // Named as undici names its own timeouts, so the retry policy treats both alike: a cut
    // before the headers may still have reached the service ("sent, answer unknown").
    const code = cut === "headers" ? "UND_ERR_HEADERS_TIMEOUT" : "UND_ERR_BODY_TIMEOUT";
    return { error: Object.assign(new Error(`deadline reached waiting for the ${cut}`), { code }) };
  } finally {
    clearTimeout(timer);
  }
}

async function readCapped(body: AsyncIterable<Buffer | string>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > limit)
      throw Object.assign(new Error("response too large"), { code: "CERTSCHED_TOO_LARGE", limit });
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Failures that happen before a request is written: no connection was made, so the upstream
 * never saw it (not counted against its request budget).
 */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

export function codeOf(error: unknown): string {
  return (error as { code?: string } | null)?.code ?? "UNKNOWN";
}

const TIMEOUT_CODES = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT",
  "ABORT_ERR",
]);

/** Maps a transport failure to our family; the message names the upstream and the cause. */
export function networkError(
  upstream: UpstreamName,
  error: unknown,
  timeoutMs: number,
): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const code = (error as { code?: string } | null)?.code ?? "UNKNOWN";
  if (TIMEOUT_CODES.has(code)) {
    const what =
      code === "UND_ERR_BODY_TIMEOUT"
        ? "the body did not arrive in full"
        : code === "UND_ERR_CONNECT_TIMEOUT"
          ? "no connection"
          : "no response headers";
    return new UpstreamError(
      "UPSTREAM_TIMEOUT",
      upstream,
      `${upstream}: no answer within the timeout (${what} within ${timeoutMs} ms)`,
      { retriable: true, cause: error },
    );
  }
  if (code === "CERTSCHED_TOO_LARGE") {
    const limit = (error as { limit?: number }).limit ?? MAX_RESPONSE_BYTES;
    return new UpstreamError(
      "UPSTREAM_BAD_RESPONSE",
      upstream,
      limit === MAX_RESPONSE_BYTES
        ? `${upstream}: response larger than ${MAX_RESPONSE_BYTES} bytes (${MAX_RESPONSE_BYTES / 1048576} MiB), the most certsched reads`
        : `${upstream}: response larger than ${limit} bytes, the most certsched reads from it`,
    );
  }
  const reason = code === "UND_ERR_SOCKET" ? "connection closed by the other side" : code;
  return new UpstreamError(
    "UPSTREAM_UNREACHABLE",
    upstream,
    `${upstream}: cannot reach the service (${reason})`,
    { retriable: true, cause: error },
  );
}
