import type { Agent } from "undici";
import { isCertschedError, UpstreamError, type UpstreamName } from "../errors.js";
import { type RetryPolicy, retryDelayMs } from "./retryPolicy.js";

/** An outbound request, fully built (see shared/adapters/service/requests.ts). */
export interface OutboundRequest {
  readonly upstream: UpstreamName;
  /** Default POST; Get Certificate is the one GET (it has no body). */
  readonly method?: "GET" | "POST";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly policy: RetryPolicy;
  /**
   * Per attempt, in ms, for this request only (v3 create and renew: CERTSCHED_SCHEDULE_TIMEOUT);
   * default the client's timeoutMs.
   */
  readonly timeoutMs?: number;
  /** Longest the whole call may take, in ms, retries included; default callDeadlineMs. */
  readonly deadlineMs?: number;
  /**
   * Awaited before every attempt (the first, each retry): the request budget reserves one
   * request, or rejects (QUOTA_EXHAUSTED) and the attempt is not sent. Refused before the first
   * attempt, the rejection is the call's; before a retry, the call ends with the attempt before. The ticket is settled once the attempt is over: `sent` for every attempt that may
   * have reached the upstream, all but one whose connection could not be made (NOT_SENT_CODES).
   */
  readonly reserve?: () => Promise<AttemptTicket>;
}

/** One attempt's reservation in the request budget (shared/adapters/service/requestLog.ts). */
export interface AttemptTicket {
  /** `sent`: the attempt may have reached the upstream; else the reservation is given back. */
  settle(sent: boolean): void;
}

/** What came back, after any retries. Non-2xx statuses are returned, not thrown. */
export interface InboundResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
}

export interface HttpClientOptions {
  /**
   * Per attempt, in ms: the whole exchange, from sending to the last byte of the body. Also the
   * unit of the call's overall deadline (see callDeadlineMs).
   */
  readonly timeoutMs: number;
  /** Source of jitter; tests pin it. */
  readonly random?: () => number;
  /** Wall-clock milliseconds, for Retry-After dates. */
  readonly now?: () => number;
  /** Observer for each finished call (telemetry, benchmarks). */
  readonly onCall?: (
    upstream: UpstreamName,
    durationMs: number,
    status: number | undefined,
  ) => void;
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

type Undici = typeof import("undici");
let undici: Promise<Undici> | undefined;

/**
 * undici is loaded on the first call, not at import: it is the largest module on the function
 * app's load path, and a cold start should not pay for it before anything is sent
 * (docs/performance.md).
 */
function loadUndici(): Promise<Undici> {
  undici ??= import("undici");
  return undici;
}

/**
 * The longest a call may take, in ms: every attempt at its full timeout, with the longest
 * backoff between each (30 s timeout, REPEATABLE: 4 x 30 s + 3 x 5 s = 135 s).
 */
export function callDeadlineMs(policy: RetryPolicy, timeoutMs: number): number {
  return (policy.maxRetries + 1) * timeoutMs + policy.maxRetries * policy.maxDelayMs;
}

/** Why an attempt was cut short by its deadline: before the headers came, or during the body. */
type Cut = "headers" | "body";

/**
 * Keep-alive connections, with our own retry loop driven by the pure retry policy.
 *
 * Deadlines: each attempt runs under an AbortSignal that fires `timeoutMs` after it starts,
 * covering the headers and the whole body. undici's own bodyTimeout only measures the gap
 * between chunks, so a body dripping one byte a second never tripped it. The loop has its own
 * deadline (callDeadlineMs): a retry starts only if its wait and a whole attempt still fit
 * before it, so Retry-After waits cannot stretch a call, and no attempt is ever cut short.
 */
export class HttpClient {
  #agent: Agent | undefined;
  #closed = false;
  readonly #options: HttpClientOptions;

  constructor(options: HttpClientOptions) {
    this.#options = options;
  }

  async send(req: OutboundRequest): Promise<InboundResponse> {
    const started = performance.now();
    let status: number | undefined;
    try {
      const lib = await loadUndici();
      const agent = this.#agentFor(lib);
      const timeoutMs = req.timeoutMs ?? this.#options.timeoutMs;
      const deadline = started + (req.deadlineMs ?? callDeadlineMs(req.policy, timeoutMs));
      let previous: Outcome | undefined;
      for (let retry = 1; ; retry++) {
        let ticket: AttemptTicket | undefined;
        try {
          ticket = await req.reserve?.();
        } catch (error) {
          // A retry the budget refuses is not sent: the call ends with the attempt before it,
          // as when no retry is left. Its answer (a 503, a reset after sending) is the truth a
          // caller must act on (the ledger's "answer unknown"), not the budget's refusal.
          if (!previous || !isCertschedError(error) || error.code !== "QUOTA_EXHAUSTED")
            throw error;
          if (previous.response) return previous.response;
          throw networkError(req.upstream, previous.error, timeoutMs);
        }
        const outcome = await attempt(lib, agent, req, timeoutMs);
        previous = outcome;
        ticket?.settle(
          outcome.response !== undefined || !NOT_SENT_CODES.has(codeOf(outcome.error)),
        );
        status = outcome.response?.status;
        const delay = this.#retryDelay(req.policy, retry, outcome);
        const last = delay === undefined || performance.now() + delay + timeoutMs > deadline;
        if (last) {
          if (outcome.response) return outcome.response;
          throw networkError(req.upstream, outcome.error, timeoutMs);
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    } catch (error) {
      // The budget's refusal is the call's answer as it is: nothing was sent.
      if (isCertschedError(error) && error.code === "QUOTA_EXHAUSTED") throw error;
      throw networkError(req.upstream, error, req.timeoutMs ?? this.#options.timeoutMs);
    } finally {
      this.#options.onCall?.(req.upstream, performance.now() - started, status);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#agent?.close();
  }

  #retryDelay(policy: RetryPolicy, retry: number, outcome: Outcome): number | undefined {
    const random = this.#options.random ?? Math.random;
    const now = this.#options.now ?? Date.now;
    if (outcome.response) {
      return retryDelayMs(
        policy,
        retry,
        { status: outcome.response.status, retryAfter: outcome.retryAfter },
        now(),
        random,
      );
    }
    const code = (outcome.error as { code?: string } | null)?.code;
    return retryDelayMs(policy, retry, { errorCode: code }, now(), random);
  }

  #agentFor(lib: Undici): Agent {
    // A call after close() fails as it did when the agent was built up front.
    if (this.#closed && !this.#agent) throw new lib.errors.ClientClosedError();
    const timeoutMs = this.#options.timeoutMs;
    // undici's own timeouts stay as a second line, set to the same time; whichever fires, the
    // error names the same phase (headers or body), so the retry policy reads it alike.
    this.#agent ??= new lib.Agent({
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connectTimeout: Math.min(timeoutMs, 10_000),
      connections: 64,
      // An idle connection is closed by us long before a server would close it (Node's default
      // is 5 s, front ends often minutes): a request sent on a socket the server is closing at
      // that moment fails with ECONNRESET, and a create is never retried.
      keepAliveTimeout: 2_000,
      keepAliveMaxTimeout: 2_000,
    });
    return this.#agent;
  }
}

interface Outcome {
  readonly response?: InboundResponse;
  readonly retryAfter?: string | undefined;
  readonly error?: unknown;
}

/**
 * One exchange, cut at `timeoutMs`. Never throws: a transport failure is returned as `error`, a
 * cut-short attempt as an error whose code says whether the request may have been sent (see
 * SENT_TIMEOUT_CODES in retryPolicy.ts).
 */
async function attempt(
  lib: Undici,
  agent: Agent,
  req: OutboundRequest,
  timeoutMs: number,
): Promise<Outcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let cut: Cut = "headers";
  try {
    const res = await lib.request(req.url, {
      method: req.method ?? "POST",
      headers: req.headers,
      body: req.method === "GET" ? null : req.body,
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
    const text = await readCapped(res.body);
    const contentType = res.headers["content-type"];
    const retryAfter = res.headers["retry-after"];
    return {
      response: {
        status: res.statusCode,
        contentType: Array.isArray(contentType) ? contentType[0] : contentType,
        text,
      },
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
    };
  } catch (error) {
    if (!controller.signal.aborted) return { error };
    // Named as undici names its own timeouts, so the retry policy treats both alike: a cut
    // before the headers may still have reached the service ("sent, answer unknown").
    const code = cut === "headers" ? "UND_ERR_HEADERS_TIMEOUT" : "UND_ERR_BODY_TIMEOUT";
    return { error: Object.assign(new Error(`deadline reached waiting for the ${cut}`), { code }) };
  } finally {
    clearTimeout(timer);
  }
}

async function readCapped(body: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > MAX_RESPONSE_BYTES)
      throw Object.assign(new Error("response too large"), { code: "CERTSCHED_TOO_LARGE" });
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Failures that happen before a request is written: no connection was made, so the upstream
 * never saw it (not counted against its request budget).
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function codeOf(error: unknown): string {
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
function networkError(upstream: UpstreamName, error: unknown, timeoutMs: number): UpstreamError {
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
    return new UpstreamError(
      "UPSTREAM_BAD_RESPONSE",
      upstream,
      `${upstream}: response larger than ${MAX_RESPONSE_BYTES} bytes (${MAX_RESPONSE_BYTES / 1048576} MiB), the most certsched reads`,
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
