import { setTimeout as sleep } from "node:timers/promises";
import type { RunStore } from "../core/ports/runStore.js";
import { isFinished, type Run } from "../core/runs/run.js";

/** Longest ?wait, in seconds: under the platform's 230 s cut of every HTTP request. */
export const MAX_WAIT_SECONDS = 200;
/** First pause between two reads of the run, in ms; each next one is 1.5 times longer ... */
const FIRST_POLL_MS = 200;
/** ... up to this, in ms. */
const MAX_POLL_MS = 2_000;

/**
 * Reads the run until it has finished or `seconds` have passed (on the wall clock: the platform
 * cuts the request by the wall clock, whatever the runtime's clock says). Resolves with the last
 * read, finished or not; a read that fails ends the wait there. Never throws. `since` is when
 * the request arrived (wall-clock ms), so time spent accepting the run counts against the wait.
 */
export async function waitForRun(
  store: Pick<RunStore, "get">,
  run: Run,
  seconds: number,
  since: number = Date.now(),
): Promise<Run> {
  const until = since + seconds * 1000;
  let latest = run;
  let pause = FIRST_POLL_MS;
  while (!isFinished(latest.state)) {
    const left = until - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 1.5, MAX_POLL_MS);
    try {
      // A read is cut at the end of the wait too: a store that hangs (up to its own timeout)
      // must not hold the answer past the front end's 230 s.
      const read = await readWithin(store, run.runId, until - Date.now());
      if (read === TIMED_OUT) break;
      latest = read ?? latest;
    } catch {
      // The run is queued whatever the store says now: answer 202 with it (the caller polls the
      // Location), never a 503 that a client without an Idempotency-Key repeats as a new run.
      break;
    }
  }
  return latest;
}

const TIMED_OUT = Symbol("timed out");

/** The run, or TIMED_OUT when the store has not answered within `ms`. */
async function readWithin(
  store: Pick<RunStore, "get">,
  runId: string,
  ms: number,
): Promise<Run | undefined | typeof TIMED_OUT> {
  const cancel = new AbortController();
  try {
    return await Promise.race([
      store.get(runId),
      sleep(Math.max(0, ms), TIMED_OUT, { signal: cancel.signal }),
    ]);
  } finally {
    cancel.abort();
  }
}
