import type { ConcurrencyControl, SharedLimitStore } from "../ports/concurrency.js";
import {
  type AimdChange,
  type AimdRule,
  type AimdState,
  adopt,
  applyChange,
  changeOf,
  clampLimit,
  initialState,
  nextState,
} from "./aimd.js";

export interface AdaptiveLimitOptions {
  readonly rule: AimdRule;
  /** Where every process of the account keeps the limit; unset: this process's alone. */
  readonly store?: SharedLimitStore | undefined;
  /** Wall clock (ms), for the age of the stored row. */
  readonly now: () => number;
  /** A stored row older than this (ms) is forgotten: the account starts again at `rule.start`. */
  readonly staleAfterMs?: number;
  /** While the pool runs, the stored limit is read again at most this often (ms); 1 s. */
  readonly refreshEveryMs?: number;
}

/** A stored row untouched for an hour is an old episode: start again at the configured value. */
export const STALE_AFTER_MS = 60 * 60 * 1000;
/** Conditional writes tried per change before it is kept locally only. */
const WRITE_TRIES = 4;

/**
 * AIMD (aimd.ts) for one account, shared through storage: every change of the limit (a grow,
 * a shrink) is applied to the stored row with a conditional write, and the process adopts the
 * stored result; while renewals run, the row is read again now and then, so a decrease one
 * process saw slows every process down. Storage that fails never stops a sweep: the limit goes
 * on locally, and a warning says so once (takeWarnings) until storage works again.
 */
export function adaptiveLimit(options: AdaptiveLimitOptions): ConcurrencyControl {
  const { rule, store, now } = options;
  const staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
  const refreshEveryMs = options.refreshEveryMs ?? 1_000;
  let state = initialState(rule);
  let lastRead = Number.NEGATIVE_INFINITY;
  let warned = false;
  let warnings: string[] = [];
  let chain: Promise<void> = Promise.resolve();
  let reading: Promise<void> | undefined;
  /** Changes decided here and not yet written: a read meanwhile must not undo them. */
  let pending = 0;

  const failed = (action: string, error: unknown) => {
    if (warned) return;
    warned = true;
    const why = error instanceof Error ? error.message : String(error);
    warnings.push(
      `certsched adaptive concurrency: cannot ${action} the shared limit, going on with this process's own (${why})`,
    );
  };
  const fresh = (row: { state: AimdState; updatedAt: Date } | undefined) =>
    row !== undefined && now() - row.updatedAt.getTime() <= staleAfterMs ? row.state : undefined;

  const read = async () => {
    if (!store) return;
    try {
      const row = await store.read();
      lastRead = now();
      warned = false;
      const shared = fresh(row);
      // An older epoch than this process's is a decrease of its own not yet written: keep it.
      if (shared && pending === 0 && shared.epoch >= state.epoch) {
        state = adopt(state, shared, rule);
      }
    } catch (error) {
      lastRead = now();
      failed("read", error);
    }
  };

  /**
   * The stored state written or read by a publish: taken only when no later change of this
   * process waits to be written (it was decided from the local state, which it would undo).
   */
  const settle = (stored: AimdState) => {
    lastRead = now();
    warned = false;
    if (pending <= 1) state = adopt(state, stored, rule);
  };

  /** `change`, decided from `before`, applied to the stored row. */
  const publish = async (change: AimdChange, before: AimdState) => {
    if (!store) return;
    try {
      for (let tries = 0; tries < WRITE_TRIES; tries++) {
        const row = await store.read();
        // No row (or a forgotten one): the change is applied to where this process stood.
        const base = fresh(row) ?? { ...before, healthy: 0 };
        const next = applyChange(base, change, rule);
        if (row && next.limit === base.limit && next.epoch === base.epoch) {
          // Another process's change already covers this one: nothing to write.
          settle(next);
          return;
        }
        const written = await store.write({ ...next, healthy: 0 }, row?.etag);
        if (written === "written") {
          settle(next);
          return;
        }
      }
    } catch (error) {
      failed("write", error);
    }
  };

  return {
    kind: "adaptive",
    current() {
      if (store && !reading && now() - lastRead >= refreshEveryMs) {
        reading = read().finally(() => {
          reading = undefined;
        });
      }
      return clampLimit(state.limit, rule.cap);
    },
    epoch: () => state.epoch,
    observe(signal) {
      const before = state;
      state = nextState(state, signal, rule);
      const change = changeOf(before, state);
      if (!change || !store) return;
      pending += 1;
      chain = chain
        .then(() => publish(change, before))
        .finally(() => {
          pending -= 1;
        });
    },
    refresh: () => {
      chain = chain.then(read);
      return chain;
    },
    async settled() {
      await chain;
      await reading;
    },
    state: () => state,
    takeWarnings() {
      const taken = warnings;
      warnings = [];
      return taken;
    },
  };
}
