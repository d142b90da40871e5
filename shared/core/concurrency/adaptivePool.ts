/** A running item's place in the pool, which it may give up while it waits (a backoff). */
export interface PoolSlot {
  /** Gives the slot back: another item may start. Once per reacquire. */
  release(): void;
  /** Waits for a slot again (before items not yet started); resolves at once if held. */
  reacquire(): Promise<void>;
}

/**
 * Runs `work` over `items`, results in the items' order, with at most `width()` in flight:
 * the width is read each time a slot frees (adaptive concurrency changes it while the pool
 * runs; a narrower width takes effect as items finish, none is cut short). `work` must not
 * throw: each item's failure is its own result (one certificate never stops the others).
 */
export function runPool<T, R>(
  items: readonly T[],
  width: () => number,
  work: (item: T, index: number, slot: PoolSlot) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  if (items.length === 0) return Promise.resolve(results);
  return new Promise<R[]>((resolve, reject) => {
    let next = 0;
    let active = 0;
    let finished = 0;
    /** Items waiting to get their slot back: they go before items not yet started. */
    const waiting: (() => void)[] = [];
    const room = () => active < Math.max(1, Math.floor(width()) || 1);
    const pump = () => {
      while (room()) {
        const resume = waiting.shift();
        if (resume) {
          active += 1;
          resume();
          continue;
        }
        if (next >= items.length) break;
        start(next++);
      }
    };
    const start = (index: number) => {
      active += 1;
      let held = true;
      const slot: PoolSlot = {
        release() {
          if (!held) return;
          held = false;
          active -= 1;
          pump();
        },
        reacquire() {
          if (held) return Promise.resolve();
          return new Promise<void>((granted) => {
            waiting.push(() => {
              held = true;
              granted();
            });
            pump();
          });
        },
      };
      work(items[index] as T, index, slot).then(
        (result) => {
          results[index] = result;
          if (held) active -= 1;
          held = false;
          finished += 1;
          if (finished === items.length) resolve(results);
          else pump();
        },
        (error: unknown) => reject(error),
      );
    };
    pump();
  });
}
