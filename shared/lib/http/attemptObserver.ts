import { AsyncLocalStorage } from "node:async_hooks";
import type { UpstreamName } from "../errors.js";

/** One attempt of an outbound call, as it ended (a retried call has several). */
export interface AttemptReport {
  readonly upstream: UpstreamName;
  /** From sending to the end of the answer (or of the failure), ms. */
  readonly durationMs: number;
  /** The answer's status; undefined: no answer (a network failure or a timeout). */
  readonly status: number | undefined;
  /** The failure's code (undici or Node) when there was no answer. */
  readonly errorCode: string | undefined;
}

/** Who is told of the attempts of the HttpClient calls made inside observeAttempts. */
export interface AttemptObserver {
  /** Each attempt as it ended. */
  attempted(report: AttemptReport): void;
  /**
   * Awaited after a retry's wait, right before it is sent (adaptive concurrency takes its pool
   * slot back here, having given it up while the call waited out a 429's Retry-After).
   */
  retrying?(): Promise<void>;
}

const current = new AsyncLocalStorage<AttemptObserver>();

/**
 * Runs `work` with `observer` told of every attempt the HttpClient makes inside it, retries
 * included (a 429 the client retried is seen too: adaptive concurrency backs off on it).
 */
export function observeAttempts<T>(observer: AttemptObserver, work: () => Promise<T>): Promise<T> {
  return current.run(observer, work);
}

/** Tells the observer of the work running now, if any; an observer's throw is not the call's. */
export function reportAttempt(report: AttemptReport): void {
  try {
    current.getStore()?.attempted(report);
  } catch {
    // Observing never changes the call.
  }
}

/** Waits for the observer's leave to send a retry; at once when there is none, or it fails. */
export async function beforeRetry(): Promise<void> {
  try {
    await current.getStore()?.retrying?.();
  } catch {
    // Observing never changes the call.
  }
}
