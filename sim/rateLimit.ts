import type { SimOperation } from "./operation.js";

/**
 * A service that answers 429 when it is busy (adaptive concurrency is measured
 * against it): above `capacity` requests in flight at once, a request is refused at once with
 * 429 and Retry-After, and nothing is done.
 */
export interface RateLimitOptions {
  /** Service requests in flight at once that are served; the next one is answered 429. */
  capacity: number;
  /** The 429's Retry-After, in seconds. Default 1. */
  retryAfterSeconds?: number;
  /** Operations limited. Default: every service operation (never the token endpoint). */
  operations?: SimOperation[];
}

/** What the limit saw, since the simulator started. */
export interface RateLimitStats {
  readonly capacity: number;
  /** Requests served (admitted under the capacity). */
  readonly admitted: number;
  /** Requests answered 429. */
  readonly throttled: number;
  /** Requests in flight now. */
  readonly inFlight: number;
  /** The most in flight at once. */
  readonly peakInFlight: number;
  /**
   * In-flight requests integrated over real time (request·ms): between two readings, its change
   * divided by the time between them is the mean number in flight.
   */
  readonly inFlightMs: number;
  /** performance.now() of this reading. */
  readonly at: number;
}

const SERVICE_OPERATIONS: readonly SimOperation[] = [
  "create",
  "renew",
  "list",
  "publicRenew",
  "test",
  "get",
];

export class RateLimit {
  readonly #capacity: number;
  readonly #retryAfter: string;
  readonly #operations: ReadonlySet<SimOperation>;
  #inFlight = 0;
  #peak = 0;
  #admitted = 0;
  #throttled = 0;
  #area = 0;
  #since = performance.now();

  constructor(options: RateLimitOptions) {
    if (!(Number.isInteger(options.capacity) && options.capacity >= 1)) {
      throw new RangeError(
        `rateLimit.capacity must be a whole number from 1, got ${options.capacity}`,
      );
    }
    const retryAfter = options.retryAfterSeconds ?? 1;
    if (!(Number.isInteger(retryAfter) && retryAfter >= 0)) {
      throw new RangeError(
        `rateLimit.retryAfterSeconds must be a whole number from 0, got ${retryAfter}`,
      );
    }
    const operations = options.operations ?? SERVICE_OPERATIONS;
    if (operations.includes("token")) {
      throw new RangeError("rateLimit.operations cannot limit the token endpoint");
    }
    this.#capacity = options.capacity;
    this.#retryAfter = String(retryAfter);
    this.#operations = new Set(operations);
  }

  /** The seconds a 429 asks to wait, as its Retry-After header says them. */
  get retryAfter(): string {
    return this.#retryAfter;
  }

  /**
   * Whether `op` is served now: undefined when it is not limited, false when the capacity is
   * taken (answer 429), else true, and the caller must call `release()` once it has answered.
   */
  admit(op: SimOperation): boolean | undefined {
    if (!this.#operations.has(op)) return undefined;
    if (this.#inFlight >= this.#capacity) {
      this.#throttled += 1;
      return false;
    }
    this.#move(1);
    this.#admitted += 1;
    this.#peak = Math.max(this.#peak, this.#inFlight);
    return true;
  }

  release(): void {
    this.#move(-1);
  }

  stats(): RateLimitStats {
    this.#move(0);
    return {
      capacity: this.#capacity,
      admitted: this.#admitted,
      throttled: this.#throttled,
      inFlight: this.#inFlight,
      peakInFlight: this.#peak,
      inFlightMs: this.#area,
      at: this.#since,
    };
  }

  #move(by: number): void {
    const now = performance.now();
    this.#area += this.#inFlight * (now - this.#since);
    this.#since = now;
    this.#inFlight = Math.max(0, this.#inFlight + by);
  }
}

/** The mean number in flight between two readings. */
export function meanInFlight(from: RateLimitStats, to: RateLimitStats): number {
  const ms = to.at - from.at;
  return ms > 0 ? (to.inFlightMs - from.inFlightMs) / ms : 0;
}
