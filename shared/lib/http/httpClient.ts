import type { Agent } from "undici";
import { isCertschedError, type UpstreamName } from "../errors.js";
import {
  attempt,
  codeOf,
  type InboundResponse,
  NOT_SENT_CODES,
  networkError,
  type Outcome,
} from "./attempt.js";
import { type AttemptObserver, beforeRetry, reportAttempt } from "./attemptObserver.js";
import { type RetryPolicy, retryDelayMs } from "./retryPolicy.js";
import { loadUndici, type Undici } from "./undiciCore.js";

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
  /** Longest body read, in bytes; default MAX_RESPONSE_BYTES (12 MiB). Larger: UPSTREAM_BAD_RESPONSE. */
  readonly maxResponseBytes?: number;
  /**
   * Awaited before every attempt (the first, each retry): the request budget reserves one
   * request, or rejects (QUOTA_EXHAUSTED) and the attempt is not sent. Refused before the first
   * attempt, the rejection is the call's; before a retry, the call ends with the attempt before. The ticket is settled once the attempt is over: `sent` for every attempt that may
   * have reached the upstream, all but one whose connection could not be made (NOT_SENT_CODES).
   */
  readonly reserve?: () => Promise<AttemptTicket>;
  /**
   * Called when the request's bytes are about to be handed to the socket (after the budget's
   * reservation and the connection), on every attempt; its last body byte is held until the
   * promise resolves (a request without a body byte to hold, a GET or an empty body, is written
   * only once it has resolved). Rejecting aborts the attempt before that byte, so the upstream never sees
   * a complete request: the call fails with the rejection as it is, never retried. The renewals
   * write "sent" to the ledger here (claimAndSend).
   */
  readonly sending?: () => Promise<void>;
  /** Told of every attempt of this call, retries included; unset: nobody. */
  readonly observer?: AttemptObserver | undefined;
}

/** One attempt's reservation in the request budget (shared/adapters/service/requestLog.ts). */
export interface AttemptTicket {
  /** `sent`: the attempt may have reached the upstream; else the reservation is given back. */
  settle(sent: boolean): void;
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
  /** Certificates (PEM) trusted instead of Node's store: the sandbox's local CA only. */
  readonly ca?: string | undefined;
}

/** The `sending` hook's rejection, carried out of the retry loop unchanged. */
class HeldBack {
  constructor(readonly error: unknown) {}
}

/**
 * The longest a call may take, in ms: every attempt at its full timeout, with the longest
 * backoff between each (30 s timeout, REPEATABLE: 4 x 30 s + 3 x 5 s = 135 s).
 */
export function callDeadlineMs(policy: RetryPolicy, timeoutMs: number): number {
  return (policy.maxRetries + 1) * timeoutMs + policy.maxRetries * policy.maxDelayMs;
}

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
        const attemptStarted = performance.now();
        const outcome = await attempt(lib, agent, req, timeoutMs);
        if (outcome.held) {
          // The hook refused: the request never left whole, and is not counted.
          ticket?.settle(false);
          throw new HeldBack(outcome.held.error);
        }
        reportAttempt(req.observer, {
          upstream: req.upstream,
          durationMs: performance.now() - attemptStarted,
          status: outcome.response?.status,
          errorCode: outcome.response ? undefined : codeOf(outcome.error),
        });
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
        await beforeRetry(req.observer);
      }
    } catch (error) {
      if (error instanceof HeldBack) throw error.error;
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
      ...(this.#options.ca ? { connect: { ca: this.#options.ca } } : {}),
    });
    return this.#agent;
  }
}
