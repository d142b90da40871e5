import type { CertificateRecord } from "../../core/certificate/records.js";
import type { PoolSlot } from "../../core/concurrency/adaptivePool.js";
import type { DueList, RequestContext, ServiceOperations } from "../../core/ports/service.js";
import { UpstreamError } from "../../lib/errors.js";
import type { AttemptObserver } from "../../lib/http/attemptObserver.js";
import type { SendRenewal } from "./renewOne.js";

/** The service operations a sweep calls. */
export type SweepClient = Pick<ServiceOperations, "listDue" | "renewListed">;

/** How one certificate's renewal is sent, as its turn in the pool asks for it. */
export interface RenewalCall {
  /** Told of every attempt, retries included (adaptive concurrency); unset: nobody. */
  readonly observer?: AttemptObserver | undefined;
  /** The renewal's place in the pool, given back while a 429 is waited out. */
  readonly slot?: PoolSlot | undefined;
  /** Before each round after a 429 (the renewal starts again). */
  readonly onRetry?: (() => void) | undefined;
}

/** What a sweep asks of the service: its list, and each certificate's renewal. */
export interface SweepCalls {
  listDue(): Promise<DueList>;
  /**
   * The send of one certificate's renewal: given the `sending` hook (called as the request's
   * bytes leave, its last byte held until it resolves), it sends and answers the service's text.
   */
  renewal(certificate: CertificateRecord, call: RenewalCall): SendRenewal;
}

/**
 * The one place a sweep's requests are made: each carries the run's request context (a
 * renewal's purpose, the run's trigger and id), a renewal also its observer and its `sending`
 * hook, and a renewal the service answers 429 is asked again until the run's deadline.
 */
export function sweepCalls(
  client: SweepClient,
  context: RequestContext,
  deadline: AbortSignal,
): SweepCalls {
  return {
    listDue: () => client.listDue({ context }),
    renewal: (certificate, call) => {
      const withObserver = call.observer ? { ...context, observer: call.observer } : context;
      const retry = { slot: call.slot, deadline, onRetry: call.onRetry };
      return (sending) =>
        retryThrottled(
          () => client.renewListed(certificate, { sending, context: withObserver }),
          retry,
        );
    },
  };
}

/** Rounds of waiting after the HTTP client's own retries of a 429 ran out. */
export const THROTTLE_ROUNDS = 6;
/** The first round's wait (ms); it doubles each round, up to THROTTLE_MAX_WAIT_MS. */
export const THROTTLE_FIRST_WAIT_MS = 1_000;
export const THROTTLE_MAX_WAIT_MS = 16_000;

export interface ThrottledOptions {
  /** The renewal's place in the pool: given back while it waits. */
  readonly slot?: PoolSlot | undefined;
  /** Aborted when no renewal may start any more (the sweep's deadline): waiting ends then. */
  readonly deadline?: AbortSignal | undefined;
  /** Source of jitter; tests pin it. */
  readonly random?: () => number;
  readonly rounds?: number;
  readonly firstWaitMs?: number;
  /** Called before each round after the first (the renewal starts again, in a new epoch). */
  readonly onRetry?: () => void;
}

/** Whether the service answered 429 ("too many requests"): nothing was done, asking again is safe. */
export function isThrottled(error: unknown): boolean {
  return error instanceof UpstreamError && error.status === 429;
}

/** The wait before round `round` (1-based), ms: doubling, capped, half of it random. */
export function throttleWaitMs(round: number, firstWaitMs: number, random: () => number): number {
  const ceiling = Math.min(THROTTLE_MAX_WAIT_MS, firstWaitMs * 2 ** (round - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * `send`, asked again while the service answers 429 after the HTTP client's own retries (which
 * honour Retry-After): a 429 means nothing was scheduled, so asking again can never order a
 * second renewal. Between rounds the renewal gives its pool slot back (adaptive concurrency has
 * narrowed the pool meanwhile) and waits, doubling, until the sweep's deadline: once it has
 * passed, or after `rounds`, the last 429 is the renewal's answer. Any other failure is at once.
 */
export async function retryThrottled<T>(
  send: () => Promise<T>,
  options: ThrottledOptions = {},
): Promise<T> {
  const rounds = options.rounds ?? THROTTLE_ROUNDS;
  const random = options.random ?? Math.random;
  for (let round = 1; ; round++) {
    try {
      return await send();
    } catch (error) {
      if (!isThrottled(error) || round > rounds || options.deadline?.aborted) throw error;
      options.slot?.release();
      await sleep(
        throttleWaitMs(round, options.firstWaitMs ?? THROTTLE_FIRST_WAIT_MS, random),
        options.deadline,
      );
      await options.slot?.reacquire();
      if (options.deadline?.aborted) throw error;
      options.onRetry?.();
    }
  }
}
