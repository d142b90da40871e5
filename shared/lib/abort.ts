/**
 * One "abort" listener per signal, however many probes wait on it. A verification run hands one
 * signal (the invocation's, the caller's) to every probe; a listener per probe in flight passes
 * Node's limit of 10 per EventTarget at the default 16 probes at a time, and Node prints a
 * MaxListenersExceededWarning (a leak warning that is no leak). Raising the limit would hide a
 * real leak elsewhere; fanning out from one listener keeps the count at one.
 */

interface Waiters {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}

const bySignal = new WeakMap<AbortSignal, Waiters>();

/**
 * Calls `callback` once when `signal` aborts; returns the function that stops waiting. The
 * signal's only listener is removed when its last waiter stops, so a long-lived signal keeps
 * nothing of runs that are over.
 */
export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
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
