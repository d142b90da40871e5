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

const current = new AsyncLocalStorage<(report: AttemptReport) => void>();

/**
 * Runs `work` with `observer` told of every attempt the HttpClient makes inside it, retries
 * included (a 429 the client retried is seen too: adaptive concurrency backs off on it).
 */
export function observeAttempts<T>(
  observer: (report: AttemptReport) => void,
  work: () => Promise<T>,
): Promise<T> {
  return current.run(observer, work);
}

/** Tells the observer of the work running now, if any; an observer's throw is not the call's. */
export function reportAttempt(report: AttemptReport): void {
  try {
    current.getStore()?.(report);
  } catch {
    // Observing never changes the call.
  }
}
