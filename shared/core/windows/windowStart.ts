/**
 * A window's start: five cron fields (minute hour day-of-month month day-of-week), read by
 * croner in the window's zone. Returns the problem, naming the rule, or undefined when valid.
 */
export function windowStartProblem(_text: string): string | undefined {
  throw new Error("not yet");
}

/** Whether `zone` is an IANA zone with its own rules (not an offset); the problem otherwise. */
export function timeZoneProblem(_zone: string): string | undefined {
  throw new Error("not yet");
}

/** A certificate name pattern's problem (`*`, `?` and certificate-name characters), if any. */
export function patternProblem(_pattern: string): string | undefined {
  throw new Error("not yet");
}
