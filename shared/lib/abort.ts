/**
 * One "abort" listener per signal, however many probes wait on it. A verification run hands one
 * signal (the invocation's, the caller's) to every probe; a listener per probe in flight passes
 * Node's limit of 10 per EventTarget at the default 16 probes at a time, and Node prints a
 * MaxListenersExceededWarning (a leak warning that is no leak). Raising the limit would hide a
 * real leak elsewhere; fanning out from one listener keeps the count at one.
 */

/** An AbortSignal, or the Azure SDKs' AbortSignalLike (which may carry no reason). */
export interface SignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

interface Waiters {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}

const bySignal = new WeakMap<SignalLike, Waiters>();

/**
 * Calls `callback` once when `signal` aborts; returns the function that stops waiting. The
 * signal's only listener is removed when its last waiter stops, so a long-lived signal keeps
 * nothing of runs that are over.
 */
export function whenAborted(signal: SignalLike, callback: () => void): () => void {
  let waiters = bySignal.get(signal);
  if (waiters === undefined) {
    const callbacks = new Set<() => void>();
    const listener = () => {
      bySignal.delete(signal);
      for (const waiting of [...callbacks]) waiting();
      callbacks.clear();
    };
    waiters = { callbacks, listener };
    bySignal.set(signal, waiters);
    signal.addEventListener("abort", listener, { once: true });
  }
  const own = waiters;
  // A wrapper per call: the same callback given twice is two waiters.
  const entry = () => callback();
  own.callbacks.add(entry);
  return () => {
    own.callbacks.delete(entry);
    if (own.callbacks.size === 0 && bySignal.get(signal) === own) {
      bySignal.delete(signal);
      signal.removeEventListener("abort", own.listener);
    }
  };
}

/** Why `signal` aborted: its reason, or an AbortError when it carries none (an SDK's signal). */
function abortReason(signal: SignalLike): unknown {
  if (signal.reason !== undefined) return signal.reason;
  const error = new Error("The operation was aborted.");
  error.name = "AbortError";
  return error;
}

/**
 * `work`, or a rejection with the signal's reason once `signal` aborts, whichever comes first:
 * for waits that take no signal (a token wait) or may not honour one (an SDK's later pages).
 */
export function untilAborted<T>(work: Promise<T>, signal: SignalLike | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const stop = whenAborted(signal, () => reject(abortReason(signal)));
    work.then(resolve, reject).finally(stop);
  });
}
