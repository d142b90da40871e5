import { DAY_MS, HOUR_MS, parseDuration } from "../../lib/time.js";

/**
 * The service's request budget, CERTSCHED_SERVICE_QUOTA: at most `requests` requests in any
 * rolling `windowMs`. The vendor's API docs publish 100 requests per week per subscriber for the
 * public API (older docs; it may have changed), so "100/7d" is the example, and unset the default.
 */
export interface ServiceQuota {
  /** Requests allowed in the window, 1..1,000,000. */
  readonly requests: number;
  /** The rolling window, in ms (1 h..31 d). */
  readonly windowMs: number;
  /** As written by the operator, trimmed ("100/7d"), for messages. */
  readonly text: string;
}

/** The rule a value must follow, for error messages and docs. */
export const QUOTA_RULE =
  "must be <requests>/<window>, such as 100/7d: a whole number from 1 to 1000000, a slash, and a window from 1h to 31d written like 7d, 168h or P7D";

const MAX_REQUESTS = 1_000_000;
const MIN_WINDOW_MS = HOUR_MS;
const MAX_WINDOW_MS = 31 * DAY_MS;

/** Parses "100/7d"; returns the quota, or the problem in words (never the value: it is echoed). */
export function parseServiceQuota(value: string): ServiceQuota | string {
  const text = value.trim();
  const match = /^(\d+)\s*\/\s*(\S+)$/.exec(text);
  if (!match) return QUOTA_RULE;
  const requests = Number(match[1]);
  const windowMs = parseDuration(match[2] ?? "");
  if (!Number.isSafeInteger(requests) || requests < 1 || requests > MAX_REQUESTS) {
    return `${QUOTA_RULE} (the number of requests is out of range)`;
  }
  if (windowMs === undefined) return `${QUOTA_RULE} (the window is not a duration)`;
  if (windowMs < MIN_WINDOW_MS || windowMs > MAX_WINDOW_MS) {
    return `${QUOTA_RULE} (the window is out of range)`;
  }
  return { requests, windowMs, text: `${requests}/${match[2]}` };
}

/**
 * Whether `used` requests reach 80 % of the quota, where a sweep warns (exactly 80 % warns).
 * Whole numbers only (5 x used >= 4 x requests): no floating-point edge at the boundary.
 */
export function nearQuota(quota: ServiceQuota, used: number): boolean {
  return used * 5 >= quota.requests * 4;
}
