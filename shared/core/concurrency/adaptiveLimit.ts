import type { ConcurrencyControl, SharedLimitStore } from "../ports/concurrency.js";
import {
  type AimdChange,
  type AimdRule,
  type AimdSignal,
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
  return new AdaptiveLimit(options);
}

/** A row of the shared limit as the store reads it. */
type StoredLimit = Awaited<ReturnType<SharedLimitStore["read"]>>;

/**
 * The limit as a class: its methods are fields, so that they can be passed around and the
 * control spread like the object of functions it was.
 */
class AdaptiveLimit implements ConcurrencyControl {
  readonly kind = "adaptive";
  readonly #rule: AimdRule;
  readonly #store: SharedLimitStore | undefined;
  readonly #now: () => number;
  readonly #staleAfterMs: number;
  readonly #refreshEveryMs: number;
  #state: AimdState;
  #lastRead = Number.NEGATIVE_INFINITY;
  #warned = false;
  #warnings: string[] = [];
  #chain: Promise<void> = Promise.resolve();
  #reading: Promise<void> | undefined;
  /** Changes decided here and not yet written: a read meanwhile must not undo them. */
  #pending = 0;

  constructor(options: AdaptiveLimitOptions) {
    this.#rule = options.rule;
    this.#store = options.store;
    this.#now = options.now;
    this.#staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
    this.#refreshEveryMs = options.refreshEveryMs ?? 1_000;
    this.#state = initialState(this.#rule);
  }

  readonly current = (): number => {
    if (this.#store && !this.#reading && this.#now() - this.#lastRead >= this.#refreshEveryMs) {
      this.#reading = this.#read().finally(() => {
        this.#reading = undefined;
      });
    }
    return clampLimit(this.#state.limit, this.#rule.cap);
  };

  readonly epoch = (): number => this.#state.epoch;

  readonly observe = (signal: AimdSignal): void => {
    const before = this.#state;
    this.#state = nextState(this.#state, signal, this.#rule);
    const change = changeOf(before, this.#state);
    if (!change || !this.#store) return;
    this.#pending += 1;
    this.#chain = this.#chain
      .then(() => this.#publish(change, before))
      .finally(() => {
        this.#pending -= 1;
      });
  };

  readonly refresh = (): Promise<void> => {
    this.#chain = this.#chain.then(() => this.#read());
    return this.#chain;
  };

  readonly settled = async (): Promise<void> => {
    await this.#chain;
    await this.#reading;
  };

  readonly state = (): AimdState => this.#state;

  readonly takeWarnings = (): string[] => {
    const taken = this.#warnings;
    this.#warnings = [];
    return taken;
  };

  #failed(action: string, error: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    const why = error instanceof Error ? error.message : String(error);
    this.#warnings.push(
      `certsched adaptive concurrency: cannot ${action} the shared limit, going on with this process's own (${why})`,
    );
  }

  #fresh(row: StoredLimit): AimdState | undefined {
    return row !== undefined && this.#now() - row.updatedAt.getTime() <= this.#staleAfterMs
      ? row.state
      : undefined;
  }

  async #read(): Promise<void> {
    if (!this.#store) return;
    try {
      const row = await this.#store.read();
      this.#lastRead = this.#now();
      this.#warned = false;
      const shared = this.#fresh(row);
      // An older epoch than this process's is a decrease of its own not yet written: keep it.
      if (shared && this.#pending === 0 && shared.epoch >= this.#state.epoch) {
        this.#state = adopt(this.#state, shared, this.#rule);
      }
    } catch (error) {
      this.#lastRead = this.#now();
      this.#failed("read", error);
    }
  }

  /**
   * The stored state written or read by a publish: taken only when no later change of this
   * process waits to be written (it was decided from the local state, which it would undo).
   */
  #settle(stored: AimdState): void {
    this.#lastRead = this.#now();
    this.#warned = false;
    if (this.#pending <= 1) this.#state = adopt(this.#state, stored, this.#rule);
  }

  /** `change`, decided from `before`, applied to the stored row. */
  async #publish(change: AimdChange, before: AimdState): Promise<void> {
    const store = this.#store;
    if (!store) return;
    try {
      for (let tries = 0; tries < WRITE_TRIES; tries++) {
        const row = await store.read();
        // No row (or a forgotten one): the change is applied to where this process stood.
        const base = this.#fresh(row) ?? { ...before, healthy: 0 };
        const next = applyChange(base, change, this.#rule);
        if (row && next.limit === base.limit && next.epoch === base.epoch) {
          // Another process's change already covers this one: nothing to write.
          this.#settle(next);
          return;
        }
        const written = await store.write({ ...next, healthy: 0 }, row?.etag);
        if (written === "written") {
          this.#settle(next);
          return;
        }
      }
    } catch (error) {
      this.#failed("write", error);
    }
  }
}
