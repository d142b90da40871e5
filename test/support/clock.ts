/** A clock a test moves by hand; the simulator and certsched both read it through `now`. */
export interface FakeClock {
  now(): Date;
  /** Moves the clock `ms` forward (backward when negative). */
  advance(ms: number): void;
  /** Moves the clock to `at`. */
  set(at: Date | string): void;
  /** Moves the clock to `ms` after its start. */
  setElapsed(ms: number): void;
}

/** Starts at `start` (default 2026-03-01T03:00:00.000Z) and moves only when told. */
export function fakeClock(start: Date | string = "2026-03-01T03:00:00.000Z"): FakeClock {
  const origin = new Date(start).getTime();
  if (Number.isNaN(origin)) throw new Error(`fakeClock: not a date: ${String(start)}`);
  let t = origin;
  return {
    now: () => new Date(t),
    advance(ms) {
      t += ms;
    },
    set(at) {
      t = new Date(at).getTime();
    },
    setElapsed(ms) {
      t = origin + ms;
    },
  };
}
