import type { Opening, Timing } from "./calendar.js";

/** `2026-12-08 09:00 CET (08:00 UTC)`: an opening in its zone and in UTC. */
export function openingText(_opening: Opening): string {
  throw new Error("not yet");
}

/** The words a result, a line or a page gives for a timing (empty for `unrestricted`/`open`). */
export function timingDetail(_timing: Timing): string {
  throw new Error("not yet");
}
