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

/**
 * Who is told of the attempts of one HttpClient call (OutboundRequest.observer), retries
 * included: a 429 the client retried is seen too, and adaptive concurrency backs off on it.
 */
export interface AttemptObserver {
  /** Each attempt as it ended. */
  attempted(report: AttemptReport): void;
  /**
   * Awaited after a retry's wait, right before it is sent (adaptive concurrency takes its pool
   * slot back here, having given it up while the call waited out a 429's Retry-After).
   */
  retrying?(): Promise<void>;
}

/** Tells `observer` of an attempt; an observer's throw is not the call's. */
export function reportAttempt(observer: AttemptObserver | undefined, report: AttemptReport): void {
  try {
    observer?.attempted(report);
  } catch {
    // Observing never changes the call.
  }
}

/** Waits for the observer's leave to send a retry; at once when there is none, or it fails. */
export async function beforeRetry(observer: AttemptObserver | undefined): Promise<void> {
  try {
    await observer?.retrying?.();
  } catch {
    // Observing never changes the call.
  }
}
