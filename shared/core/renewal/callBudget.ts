import { UpstreamError } from "../../lib/errors.js";

/**
 * A v3 create or renew that got no answer within CERTSCHED_SCHEDULE_TIMEOUT may still have been
 * scheduled: the service acts on the request and answers late (the vendor's 8.0 client waits up
 * to 10 minutes). Such a call is "unknown" until Get Certificate shows it took effect; certsched
 * never reports it failed, and never suggests sending it again.
 */

/** The platform's front end drops every HTTP request after 230 s, whatever functionTimeout says. */
export const FRONT_END_LIMIT_MS = 230_000;

/**
 * How long, in ms, the service calls of one create or renew by name may take in all, from the
 * first: the rest of the 230 s is for tokens, storage and the answer. The schedule call alone may
 * take 120 s (CERTSCHED_SCHEDULE_TIMEOUT) and, after a 429, up to 200 s; the Get Certificate
 * that confirms it (30 s a try, three retries) would add up to 135 s more. Without a shared
 * budget the function answered after the front end had already dropped the request.
 */
export const CALLS_WITHIN_MS = 215_000;

/** Kept, in ms, for the Get Certificate that confirms an unanswered create or renew. */
export const CONFIRM_RESERVE_MS = 15_000;

/** What is left of a request's time for service calls, in ms (negative once spent). */
export interface CallBudget {
  left(): number;
}

/**
 * A budget of `withinMs` from now, on the monotonic clock: the front end cuts by real time,
 * whatever the runtime's (injectable) clock says.
 */
export function callBudget(
  withinMs: number = CALLS_WITHIN_MS,
  clock: () => number = () => performance.now(),
): CallBudget {
  const until = clock() + withinMs;
  return { left: () => until - clock() };
}

/** The budget a schedule call may use: what is left, less the confirming Get's reserve. */
export function scheduleBudget(budget: CallBudget): CallBudget {
  return { left: () => budget.left() - CONFIRM_RESERVE_MS };
}

/** Why an unanswered call could not be looked up: no time left before the front end. */
export const NO_TIME_TO_CONFIRM = `no time was left to ask Get Certificate within the HTTP front end's ${FRONT_END_LIMIT_MS / 1000} s`;

/** Whether a create or renew failed by getting no answer in time (it may have been scheduled). */
export function unanswered(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && error.code === "UPSTREAM_TIMEOUT";
}

/** Options of a service call made within a request's time. */
export interface WithinOptions {
  /** The call, retries included, ends within `budget.left()`; unset: the client's own limits. */
  readonly budget?: CallBudget | undefined;
}

/**
 * Longest CERTSCHED_SCHEDULE_TIMEOUT, in ms: the HTTP functions that create and renew answer
 * behind a front end that drops a request after 230 s; 200 s leaves room for the Get Certificate
 * that confirms a call which timed out, and for the rest of the invocation.
 */
export const SCHEDULE_TIMEOUT_MAX_MS = 200_000;

/** Shortest time, in ms, the first look-up is given, however long the renewal may wait. */
const LOOKUP_MIN_MS = 5_000;

/**
 * The budget of a renewal by name's first Get Certificate: it leaves the renewal a whole attempt
 * (CERTSCHED_SCHEDULE_TIMEOUT, in ms) and the confirming Get its reserve, never below 5 s.
 */
export function lookupBudget(
  budget: CallBudget,
  scheduleTimeoutMs: number | undefined,
): CallBudget {
  return {
    left: () =>
      Math.max(LOOKUP_MIN_MS, budget.left() - (scheduleTimeoutMs ?? 0) - CONFIRM_RESERVE_MS),
  };
}
