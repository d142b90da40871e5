import type { Agent, Dispatcher } from "undici";
import { UpstreamError, type UpstreamName } from "../errors.js";
import { type RetryPolicy, retryDelayMs } from "./retryPolicy.js";

/** An outbound POST, fully built (see shared/service/requests.ts). */
export interface OutboundRequest {
  readonly upstream: UpstreamName;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly policy: RetryPolicy;
}

/** What came back, after any retries. Non-2xx statuses are returned, not thrown. */
export interface InboundResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
}

export interface HttpClientOptions {
  /** Per attempt: time to the response headers, and between body chunks, in ms. */
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

/** Response bodies larger than this are refused: a list of 10,000 records is well under it. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

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
 * Keep-alive connections plus undici's own retry machinery, driven by our pure retry policy.
 * One RetryAgent per policy, because undici binds retry options to the dispatcher.
 */
export class HttpClient {
  #agent: Agent | undefined;
  #closed = false;
  readonly #retrying = new Map<RetryPolicy, Dispatcher>();
  readonly #options: HttpClientOptions;

  constructor(options: HttpClientOptions) {
    this.#options = options;
  }

  async send(req: OutboundRequest): Promise<InboundResponse> {
    const started = performance.now();
    let status: number | undefined;
    try {
      const lib = await loadUndici();
      const res = await lib.request(req.url, {
        method: "POST",
        headers: req.headers,
        body: req.body,
        // No redirect interceptor: a 3xx is returned as it is, never followed, since
        // following it could hand our tokens to another host.
        dispatcher: this.#dispatcherFor(lib, req.policy),
      });
      status = res.statusCode;
      const text = await readCapped(res.body);
      const contentType = res.headers["content-type"];
      return {
        status: res.statusCode,
        contentType: Array.isArray(contentType) ? contentType[0] : contentType,
        text,
      };
    } catch (error) {
      throw networkError(req.upstream, error);
    } finally {
      this.#options.onCall?.(req.upstream, performance.now() - started, status);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#agent?.close();
  }

  #dispatcherFor(lib: Undici, policy: RetryPolicy): Dispatcher {
    let dispatcher = this.#retrying.get(policy);
    if (!dispatcher) {
      // A call after close() fails as it did when the agent was built up front.
      if (this.#closed && !this.#agent) throw new lib.errors.ClientClosedError();
      const timeoutMs = this.#options.timeoutMs;
      this.#agent ??= new lib.Agent({
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        connectTimeout: Math.min(timeoutMs, 10_000),
        connections: 64,
      });
      const random = this.#options.random ?? Math.random;
      const now = this.#options.now ?? Date.now;
      dispatcher = new lib.RetryAgent(this.#agent, {
        throwOnError: false,
        methods: ["POST"],
        retry: (err, { state }, callback) => {
          const e = err as Error & { statusCode?: number; code?: string; headers?: Headers };
          const headers = e.headers as Record<string, string | string[] | undefined> | undefined;
          const retryAfter = headers?.["retry-after"];
          const delay = retryDelayMs(
            policy,
            state.counter,
            {
              status: e.code === "UND_ERR_REQ_RETRY" ? e.statusCode : undefined,
              errorCode: e.code === "UND_ERR_REQ_RETRY" ? undefined : e.code,
              retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
            },
            now(),
            random,
          );
          if (delay === undefined) callback(err);
          else setTimeout(() => callback(null), delay);
          return null;
        },
      });
      this.#retrying.set(policy, dispatcher);
    }
    return dispatcher;
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

const TIMEOUT_CODES = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT",
  "ABORT_ERR",
]);

/** Maps a thrown transport error to our family; the message names the upstream and the cause. */
function networkError(upstream: UpstreamName, error: unknown): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const code = (error as { code?: string } | null)?.code ?? "UNKNOWN";
  if (TIMEOUT_CODES.has(code)) {
    return new UpstreamError(
      "UPSTREAM_TIMEOUT",
      upstream,
      `${upstream}: no answer within the timeout (${code})`,
      {
        retriable: true,
        cause: error,
      },
    );
  }
  if (code === "CERTSCHED_TOO_LARGE") {
    return new UpstreamError(
      "UPSTREAM_BAD_RESPONSE",
      upstream,
      `${upstream}: response larger than ${MAX_RESPONSE_BYTES} bytes`,
    );
  }
  const reason = code === "UND_ERR_SOCKET" ? "connection closed by the other side" : code;
  return new UpstreamError(
    "UPSTREAM_UNREACHABLE",
    upstream,
    `${upstream}: cannot reach the service (${reason})`,
    {
      retriable: true,
      cause: error,
    },
  );
}
