/**
 * When to repeat a failed call, as one pure function (spec-driven; see README "Retries").
 * 429 and 503 say "not now" and are retried for every operation, honouring Retry-After.
 * Other 5xx and network errors are retried only where repeating is harmless (list, test,
 * both renews), never for create: a repeated create may schedule two certificates.
 * 400, 401 and 404 are answers, not accidents: never retried.
 */
export interface RetryPolicy {
  /** Statuses that may be retried. */
  readonly statuses: readonly number[];
  /** Whether resets, refused connections and timeouts may be retried. */
  readonly networkErrors: boolean;
  /**
   * Whether a timeout waiting for the answer to a request already sent may be retried (default
   * true). The upstream may have acted on that request: a retry can make it act twice.
   */
  readonly retrySentTimeouts?: boolean;
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** First backoff delay, ms; doubles each retry. */
  readonly baseDelayMs: number;
  /** Longest backoff delay, ms. */
  readonly maxDelayMs: number;
  /** A Retry-After longer than this (ms) is not waited for: the call fails with the status. */
  readonly maxRetryAfterMs: number;
}

/** Network failures worth another try (undici and Node error codes). */
export const RETRIABLE_NETWORK_CODES: readonly string[] = [
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
];

const TIMING = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 5_000, maxRetryAfterMs: 30_000 };

/** list, test, v3 renew, public renew: repeating them is harmless. */
export const REPEATABLE: RetryPolicy = {
  statuses: [429, 500, 502, 503, 504],
  networkErrors: true,
  ...TIMING,
};

/**
 * Both renews: as REPEATABLE, except a renew that timed out after it was sent. The service may
 * have scheduled that renewal and merely answered late; repeating it would order a second
 * certificate. It is reported as failed instead (the sweep keeps it within its grace window).
 */
export const RENEW: RetryPolicy = { ...REPEATABLE, retrySentTimeouts: false };

/** Timeouts that fire after the request was sent, while waiting for (the rest of) the answer. */
export const SENT_TIMEOUT_CODES: readonly string[] = [
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
];

/** create: only "not now" answers, which mean nothing was scheduled. */
export const CREATE_ONLY_WHEN_REFUSED: RetryPolicy = {
  statuses: [429, 503],
  networkErrors: false,
  ...TIMING,
};

export interface Failure {
  status?: number | undefined;
  /** Error code of a network failure (undici or Node). */
  errorCode?: string | undefined;
  /** The Retry-After header as sent: seconds, or an HTTP date. */
  retryAfter?: string | undefined;
}

/** Milliseconds to wait before retry number `retry` (1-based), or undefined: do not retry. */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  failure: Failure,
  now: number,
  random: () => number = Math.random,
): number | undefined {
  if (retry > policy.maxRetries) return undefined;
  if (failure.status !== undefined) {
    if (!policy.statuses.includes(failure.status)) return undefined;
  } else if (!policy.networkErrors || !RETRIABLE_NETWORK_CODES.includes(failure.errorCode ?? "")) {
    return undefined;
  } else if (
    policy.retrySentTimeouts === false &&
    SENT_TIMEOUT_CODES.includes(failure.errorCode ?? "")
  ) {
    return undefined;
  }
  const hinted = retryAfterMs(failure.retryAfter, now);
  if (hinted !== undefined) return hinted <= policy.maxRetryAfterMs ? hinted : undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  // "Equal jitter": half fixed, half random, so many sweeps do not retry in lockstep.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Retry-After as seconds or as an HTTP date (RFC 9110 10.2.3); undefined if absent or invalid. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form starts with a day name; Date.parse alone reads "-1" or "1.5" as dates.
  if (!/^[a-z]{3,9},?\s/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
