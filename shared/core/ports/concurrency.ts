import type { AimdSignal, AimdState } from "../concurrency/aimd.js";

/**
 * How many renewals of one account may be in flight: the pool of a sweep reads
 * `current()` each time a slot frees, and tells what each request met (`observe`). Built per
 * account (shared/app/accountServices.ts); the adaptive one (core/concurrency/adaptiveLimit.ts)
 * shares its limit with every process of the account through storage. Never throws.
 */
export interface ConcurrencyControl {
  /** "fixed": a set width (no storage, no adapting); "adaptive": AIMD. */
  readonly kind: "fixed" | "adaptive";
  /** Renewals that may be in flight now: a whole number from 1. */
  current(): number;
  /** The epoch a renewal starting now carries into its signals. */
  epoch(): number;
  /** What one request of a renewal met. */
  observe(signal: AimdSignal): void;
  /** Reads the state shared through storage (before a sweep); a failure keeps the local one. */
  refresh(): Promise<void>;
  /** Waits for the writes to storage in progress (after a sweep). */
  settled(): Promise<void>;
  /** The local state, for reports and tests. */
  state(): AimdState;
  /** What went wrong with storage since the last call (the sweep logs it as warnings). */
  takeWarnings(): string[];
}

/**
 * The account's limit as kept in storage, read and written with ETags: every process of the
 * account reads the same row, and a write names the version it read (two processes' changes
 * never overwrite each other unseen).
 */
export interface SharedLimitStore {
  /** The stored state and its version, with when it was written; undefined: no row yet. */
  read(): Promise<{ state: AimdState; etag: string; updatedAt: Date } | undefined>;
  /** Writes `state` if the row is still at `etag` (none: creates it); "conflict" otherwise. */
  write(state: AimdState, etag: string | undefined): Promise<"written" | "conflict">;
}

/** A width that never changes: what a sweep without adaptive concurrency runs with. */
export function fixedConcurrency(width: number): ConcurrencyControl {
  const limit = Math.max(1, Math.floor(width));
  return {
    kind: "fixed",
    current: () => limit,
    epoch: () => 0,
    observe: () => {},
    refresh: async () => {},
    settled: async () => {},
    state: () => ({ limit, epoch: 0, healthy: 0 }),
    takeWarnings: () => [],
  };
}
