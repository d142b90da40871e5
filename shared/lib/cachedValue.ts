/**
 * A value read through `read`, reused for `ttlMs` after the read started. Concurrent callers
 * share one in-flight read; a failed read is not cached. `fresh` forces a new read (joining
 * only another fresh one), and a result that arrives after a newer read started is dropped so
 * a slow stale read never overwrites a rotated value.
 */
export function cachedValue<T>(
  read: () => Promise<T>,
  clock: { ttlMs: number; now: () => Date },
): (fresh: boolean) => Promise<T> {
  let cached: { value: T; expiresAt: number } | undefined;
  let inFlight: { promise: Promise<T>; fresh: boolean } | undefined;
  let generation = 0;

  return (fresh) => {
    if (!fresh && cached && clock.now().getTime() < cached.expiresAt) {
      return Promise.resolve(cached.value);
    }
    if (inFlight && (inFlight.fresh || !fresh)) return inFlight.promise;

    const startedAt = clock.now().getTime();
    const mine = ++generation;
    const promise = read()
      .then((value) => {
        if (mine === generation) cached = { value, expiresAt: startedAt + clock.ttlMs };
        return value;
      })
      .finally(() => {
        if (inFlight?.promise === promise) inFlight = undefined;
      });
    inFlight = { promise, fresh };
    return promise;
  };
}
