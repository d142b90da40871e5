/**
 * One budget for a whole sweep, in ms from the invocation's start: the renewals stop
 * early enough that what follows them (the bookkeeping: history, webhook, events, inventory,
 * verification of earlier renewals, telemetry) still ends inside the function timeout.
 *
 * The rule, for a timeout T (host.json functionTimeout, CERTSCHED_FUNCTION_TIMEOUT), n listed
 * certificates and renewals in flight that may take up to D to end (their own request timeout):
 * - the bookkeeping ends by T - margin, margin = 2 % of T (12 s of 10 min) for the last write
 *   and the host's own stop;
 * - it is given a reserve of max(5 % of T, n x 4 ms), at most half of T (30 s for up to 7,500
 *   certificates, 80 s for 20,000, in 10 min);
 * - so no renewal starts after min(CERTSCHED_SWEEP_DEADLINE, T - margin - reserve - D).
 * Each bookkeeping step then gets only what is left of it, in order of need.
 */

export interface RunBudget {
  /** The function timeout (host.json functionTimeout), in ms. */
  readonly functionTimeoutMs: number;
  /** CERTSCHED_SWEEP_DEADLINE, in ms: never later than this. */
  readonly sweepDeadlineMs: number;
  /** How long a renewal in flight at the stop may still take (its request timeout), in ms. */
  readonly drainMs: number;
}

/** The reserve's floor, as a share of the timeout (30 s of 10 min). */
export const RESERVE_SHARE = 0.05;
/** The reserve per listed certificate, in ms (events and inventory rows: 80 s for 20,000). */
export const RESERVE_PER_ROW_MS = 4;
/** Kept free at the end of the timeout, as a share of it (12 s of 10 min). */
export const MARGIN_SHARE = 0.02;

/** Time kept for the bookkeeping of `rows` certificates, in ms. */
export function bookkeepingReserveMs(rows: number, functionTimeoutMs: number): number {
  const wanted = Math.max(functionTimeoutMs * RESERVE_SHARE, rows * RESERVE_PER_ROW_MS);
  return Math.round(Math.min(functionTimeoutMs / 2, wanted));
}

/** When the bookkeeping must be over, in ms from the start. */
export function bookkeepingEndMs(functionTimeoutMs: number): number {
  return functionTimeoutMs - Math.ceil(functionTimeoutMs * MARGIN_SHARE);
}

/** When the last renewal may start, in ms from the start, for `rows` listed certificates. */
export function renewalStopMs(budget: RunBudget, rows: number): number {
  const byTimeout =
    bookkeepingEndMs(budget.functionTimeoutMs) -
    bookkeepingReserveMs(rows, budget.functionTimeoutMs) -
    budget.drainMs;
  return Math.max(0, Math.min(budget.sweepDeadlineMs, byTimeout));
}
