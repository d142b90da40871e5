/**
 * Adaptive concurrency, as pure functions: how many renewals of one account may be in
 * flight at once. Additive increase, multiplicative decrease (AIMD, as TCP's congestion window):
 * start at the configured value; +1 after every healthy window (as many healthy answers as the
 * limit, about one round trip of the whole pool); ×0.5 on a 429, a timeout, or rising latency:
 * a sample of `limit` answers whose mean time is above `latencyFactor` times the baseline (the
 * best such mean seen; one slow answer is noise, a slow sample is the service). Always within
 * [1, cap]; a 429 never raises it.
 *
 * Fast recovery: a decrease remembers the limit it came from (`ceiling`, where the service said
 * "too many"). Below `ceiling - 1`, levels the service just served, each healthy answer adds 1
 * (the limit doubles per round trip, as TCP's slow start up to its threshold); it stays just
 * below the ceiling for `plateau` windows, then probes additively again. Halving and then
 * climbing back one per round trip would keep the pool near three quarters of what the service
 * takes, on average; recovering fast keeps it near the ceiling, while a 429 still halves it at
 * once. The rate-limited bench (bench/rateLimitBench.ts) measures it.
 */

/** The rule's parameters (shared/app builds them from the settings). */
export interface AimdRule {
  /** Where a new account starts: CERTSCHED_RENEWAL_CONCURRENCY. */
  readonly start: number;
  /** The most it grows to: CERTSCHED_RENEWAL_CONCURRENCY_MAX. */
  readonly cap: number;
  /** The factor of a decrease (0 < decrease < 1); 0.5. */
  readonly decrease: number;
  /** A sample's mean answer time above this many times the baseline is "rising latency"; 3. */
  readonly latencyFactor: number;
  /** A sample's mean below this (ms) is never "rising latency", whatever the baseline; 250. */
  readonly latencyFloorMs: number;
  /** Healthy windows spent just below the ceiling before probing past it again; 8. */
  readonly plateau: number;
}

export const DEFAULT_RULE: Omit<AimdRule, "start" | "cap"> = {
  decrease: 0.5,
  latencyFactor: 3,
  latencyFloorMs: 250,
  plateau: 8,
};

export interface AimdState {
  /** Renewals that may be in flight: a whole number in [1, cap]. */
  readonly limit: number;
  /**
   * Counts the decreases. A signal carries the epoch its renewal started in: one from before the
   * last decrease was sent at the old width, so it cannot decrease again (one decrease per window).
   */
  readonly epoch: number;
  /** Healthy answers since the last change of the limit. */
  readonly healthy: number;
  /** The lowest mean answer time of a sample (ms), what "rising latency" compares to. */
  readonly baselineMs?: number | undefined;
  /** The sample being taken: answers in it, and their summed time (ms). */
  readonly samples?: number | undefined;
  readonly sampleMs?: number | undefined;
  /** The limit the last decrease came from; unset: none yet. */
  readonly ceiling?: number | undefined;
}

/** What one request of a renewal told of the service. */
export type AimdSignal =
  /** Answered (any answer but a 429): `latencyMs` from sending to the last byte. */
  | { readonly kind: "answered"; readonly latencyMs: number; readonly epoch: number }
  /** 429: the service asks for fewer requests. */
  | { readonly kind: "throttled"; readonly epoch: number }
  /** No answer in time. */
  | { readonly kind: "timeout"; readonly epoch: number };

/** A whole number within [1, cap]; anything not a finite number is 1. */
export function clampLimit(limit: number, cap: number): number {
  const top = Math.max(1, Math.floor(Number.isFinite(cap) ? cap : 1));
  if (!Number.isFinite(limit)) return 1;
  return Math.min(top, Math.max(1, Math.floor(limit)));
}

export function initialState(rule: AimdRule): AimdState {
  return { limit: clampLimit(rule.start, rule.cap), epoch: 0, healthy: 0 };
}

/** +1 (at most the cap); a new healthy window begins. */
export function grow(state: AimdState, rule: AimdRule): AimdState {
  return { ...state, limit: clampLimit(state.limit + 1, rule.cap), healthy: 0 };
}

/** ×decrease (at least 1), and a new epoch (and sample); the limit it came from is the ceiling. */
export function shrink(state: AimdState, rule: AimdRule): AimdState {
  return {
    ...state,
    limit: clampLimit(Math.min(state.limit - 1, state.limit * rule.decrease), rule.cap),
    epoch: state.epoch + 1,
    healthy: 0,
    ceiling: state.limit,
    samples: 0,
    sampleMs: 0,
  };
}

/**
 * Healthy answers that make a window (+1 after it): 1 while recovering below the ceiling;
 * `plateau` windows just below it (the level the service last took); else the limit (about one
 * round trip of the whole pool).
 */
export function windowOf(state: AimdState, rule: AimdRule): number {
  if (state.ceiling === undefined || state.limit >= state.ceiling) return state.limit;
  if (state.limit + 1 < state.ceiling) return 1;
  return state.limit * Math.max(1, rule.plateau);
}

/** Whether a sample whose mean answer time is `meanMs` means the service is struggling. */
export function isSlow(meanMs: number, state: AimdState, rule: AimdRule): boolean {
  if (state.baselineMs === undefined || meanMs <= rule.latencyFloorMs) return false;
  return meanMs > rule.latencyFactor * state.baselineMs;
}

/**
 * `latencyMs` added to the sample; a full sample (as many answers as the limit) is judged: slow
 * is a decrease (unless `stale`), else its mean may lower the baseline and a new sample starts.
 */
function sampled(state: AimdState, latencyMs: number, stale: boolean, rule: AimdRule): AimdState {
  const samples = (state.samples ?? 0) + 1;
  const sampleMs = (state.sampleMs ?? 0) + latencyMs;
  if (samples < state.limit) return { ...state, samples, sampleMs };
  const mean = sampleMs / samples;
  if (isSlow(mean, state, rule)) {
    return stale ? { ...state, samples: 0, sampleMs: 0 } : shrink(state, rule);
  }
  const baselineMs = state.baselineMs === undefined ? mean : Math.min(state.baselineMs, mean);
  return { ...state, baselineMs, samples: 0, sampleMs: 0 };
}

/** The state after `signal`. */
export function nextState(state: AimdState, signal: AimdSignal, rule: AimdRule): AimdState {
  const current = { ...state, limit: clampLimit(state.limit, rule.cap) };
  // Sent before the last decrease: what it says was already acted on.
  const stale = signal.epoch < current.epoch;
  if (signal.kind === "answered") {
    if (!Number.isFinite(signal.latencyMs) || signal.latencyMs < 0) return current;
    const judged = sampled(current, signal.latencyMs, stale, rule);
    if (judged.epoch > current.epoch) return judged;
    const healthy = current.healthy + 1;
    const next = { ...judged, healthy };
    return healthy >= windowOf(current, rule) ? grow(next, rule) : next;
  }
  return stale ? current : shrink(current, rule);
}

/**
 * A change one process made, to apply to the state kept in storage (shared by every process of
 * the account): `from` is the epoch the change was decided in.
 */
export type AimdChange = { readonly kind: "grow" | "shrink"; readonly from: number };

/** What `before` → `after` changed, for storage; undefined: nothing to share. */
export function changeOf(before: AimdState, after: AimdState): AimdChange | undefined {
  if (after.epoch > before.epoch) return { kind: "shrink", from: before.epoch };
  if (after.limit > before.limit) return { kind: "grow", from: before.epoch };
  return undefined;
}

/**
 * `change` applied to the stored state. A shrink decided in an epoch another process already
 * ended is not repeated (its decrease covered it); a grow counts only in the epoch it was
 * decided in (a decrease since then wins).
 */
export function applyChange(stored: AimdState, change: AimdChange, rule: AimdRule): AimdState {
  const current = { ...stored, limit: clampLimit(stored.limit, rule.cap) };
  if (change.kind === "shrink")
    return change.from >= current.epoch ? shrink(current, rule) : current;
  return change.from === current.epoch ? grow(current, rule) : current;
}

/**
 * The local state after reading the shared one: its limit, epoch and ceiling; the local window
 * and sample are kept within the same epoch, and start again in another.
 */
export function adopt(local: AimdState, shared: AimdState, rule: AimdRule): AimdState {
  return {
    ...local,
    limit: clampLimit(shared.limit, rule.cap),
    epoch: shared.epoch,
    ceiling: shared.ceiling ?? local.ceiling,
    ...(shared.epoch === local.epoch ? {} : { healthy: 0, samples: 0, sampleMs: 0 }),
  };
}
