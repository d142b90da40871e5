/** Longest delay setTimeout honours; longer ones would fire after 1 ms instead. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Real-time waits (latency, delay faults) that `close()` can cut short, so a hanging response
 * never keeps the simulator, or a test run, alive.
 */
export class Delays {
  readonly #cancels = new Set<() => void>();

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        this.#cancels.delete(done);
        resolve();
      };
      this.#cancels.add(done);
      // Longer than a timer can hold (Infinity included) means "until close".
      if (ms <= MAX_TIMER_MS) timer = setTimeout(done, ms);
    });
  }

  /** Ends every wait now. */
  cancelAll(): void {
    for (const done of [...this.#cancels]) done();
  }
}
