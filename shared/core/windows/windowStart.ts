import { Cron } from "croner";
import { escapeControl } from "../../lib/text/escapeControl.js";

/** A start longer than this is refused before it is read (nobody writes a longer cron). */
export const MAX_START_LENGTH = 200;

/** Control characters: never part of a cron, a zone or a certificate name. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** An offset given as a zone: it has no DST rules, so a window would drift from the place's hours. */
const OFFSET = /^(?:(?:UTC|GMT|Z)\s*[+-−]|[+-−]\s*\d|Etc\/GMT[+-])/i;

/**
 * The cron of a window's start: five fields read in `timeZone`, day of month and day of week
 * either matching (as in Vixie cron and cert-manager). A start in an hour the zone skips runs
 * when the clock has jumped (that day); a start in an hour the zone repeats runs once, the first
 * time (croner's fixed-time rule, for any start without a wildcard or step in its minute and hour).
 */
export function startCron(start: string, timeZone: string): Cron {
  return new Cron(start, {
    timezone: timeZone,
    mode: "5-part",
    fixedTimeRule: "no-wildcard",
    paused: true,
  });
}

/**
 * A window's start: five cron fields (minute hour day-of-month month day-of-week). Returns the
 * problem, naming the rule, or undefined when valid. Whether it ever matches is checked with its
 * zone (checkCalendar.ts).
 */
export function windowStartProblem(text: string): string | undefined {
  if (text.length > MAX_START_LENGTH) return `is longer than ${MAX_START_LENGTH} characters`;
  if (CONTROL.test(text)) return "contains control characters";
  const fields = text.trim().split(/\s+/);
  const count = fields[0] === "" ? 0 : fields.length;
  if (count !== 5) {
    return `must have five fields (minute hour day-of-month month day-of-week); it has ${count}${count > 5 ? " (seconds and years are not supported)" : ""}`;
  }
  try {
    startCron(text, "UTC");
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `is not a valid cron: ${escapeControl(message.replace(/^CronPattern:\s*/, "")).slice(0, 300)}`;
  }
}

/** Whether `zone` is an IANA zone with its own rules (not an offset); the problem otherwise. */
export function timeZoneProblem(zone: string): string | undefined {
  if (zone.length === 0) return "is empty: give an IANA time zone such as Europe/Berlin";
  if (zone.length > 64 || CONTROL.test(zone))
    return "is not an IANA time zone (e.g. Europe/Berlin)";
  if (OFFSET.test(zone.trim())) {
    return "is an offset, not a time zone: give the place's zone (e.g. Europe/Berlin), whose DST rules the window follows";
  }
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return undefined;
  } catch {
    return "is not a known IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)";
  }
}

/** A certificate name pattern's problem (`*`, `?` and any other printable character), if any. */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return "is empty: it would match no certificate";
  if (pattern.length > 256) return "is longer than 256 characters";
  if (CONTROL.test(pattern)) return "contains control characters, which no certificate name has";
  return undefined;
}

/**
 * A name pattern as a test: `*` any run of characters, `?` one, the rest as written. Matched
 * without a regular expression (the classic wildcard walk, back to the last `*`), so no pattern
 * can make a match take more than names × pattern steps.
 */
export function patternTest(pattern: string): (name: string) => boolean {
  if (!/[*?]/.test(pattern)) return (name) => name === pattern;
  const p = [...pattern];
  return (name) => {
    const n = [...name];
    let i = 0;
    let j = 0;
    let star = -1;
    let resume = 0;
    while (i < n.length) {
      if (j < p.length && (p[j] === "?" || p[j] === n[i])) {
        i += 1;
        j += 1;
      } else if (j < p.length && p[j] === "*") {
        star = j;
        resume = i;
        j += 1;
      } else if (star >= 0) {
        j = star + 1;
        resume += 1;
        i = resume;
      } else return false;
    }
    while (j < p.length && p[j] === "*") j += 1;
    return j === p.length;
  };
}
