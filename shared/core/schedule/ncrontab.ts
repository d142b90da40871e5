import { DAY_MS } from "../../lib/time.js";

/**
 * The renewal timer's schedule (CERTSCHED_RENEWAL_SCHEDULE), read the way the Functions host
 * reads it: NCRONTAB with six fields, `second minute hour day month day-of-week`, in UTC (the
 * host's zone unless WEBSITE_TIME_ZONE says otherwise; certsched documents UTC). Each field is a
 * comma-separated list of `*`, `n`, `n-m`, each optionally `/step`; months and days of the week
 * may be given as their first three letters (JAN, MON). Day of the month and day of the week
 * must BOTH match, as in NCrontab (atifaziz/NCrontab#107), not either as in Vixie cron.
 */

/** One field's allowed values and the names it accepts. */
interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

const FIELDS: readonly FieldSpec[] = [
  { name: "second", min: 0, max: 59 },
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day", min: 1, max: 31 },
  // Names count from the field's minimum: JAN is 1, SUN is 0.
  { name: "month", min: 1, max: 12, names: MONTHS },
  { name: "day-of-week", min: 0, max: 6, names: DAYS },
];

/** The values each field allows, sorted ascending. */
export interface Schedule {
  readonly seconds: readonly number[];
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly days: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
}

export type ParsedSchedule =
  | { readonly ok: true; readonly schedule: Schedule }
  | { readonly ok: false; readonly problem: string };

function value(text: string, spec: FieldSpec): number | undefined {
  if (/^\d{1,2}$/.test(text)) {
    const n = Number(text);
    return n >= spec.min && n <= spec.max ? n : undefined;
  }
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  return index >= 0 ? spec.min + index : undefined;
}

/** The values one field allows, or the rule it breaks. */
function field(text: string, spec: FieldSpec): number[] | string {
  const allowed = new Set<number>();
  for (const item of text.split(",")) {
    const [range = "", stepText, extra] = item.split("/");
    if (extra !== undefined) return `${spec.name}: "${item}" has more than one "/"`;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (stepText !== undefined && (!/^\d{1,2}$/.test(stepText) || step < 1)) {
      return `${spec.name}: the step after "/" must be a whole number from 1`;
    }
    let low: number | undefined;
    let high: number | undefined;
    if (range === "*") {
      low = spec.min;
      high = spec.max;
    } else {
      const [from = "", to, more] = range.split("-");
      if (more !== undefined) return `${spec.name}: "${item}" has more than one "-"`;
      low = value(from, spec);
      // `n/step` runs from n to the end of the field, as in cron.
      high = to === undefined ? (stepText === undefined ? low : spec.max) : value(to, spec);
    }
    if (low === undefined || high === undefined) {
      return `${spec.name}: "${item}" is not a value or range within ${spec.min}-${spec.max}${spec.names ? ` (or ${spec.names[0]}-${spec.names.at(-1)})` : ""}`;
    }
    if (low > high) return `${spec.name}: the range "${item}" runs backwards`;
    for (let n = low; n <= high; n += step) allowed.add(n);
  }
  return [...allowed].sort((a, b) => a - b);
}

/** Reads a six-field NCRONTAB expression; the problem names the field and the rule. */
export function parseSchedule(text: string): ParsedSchedule {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 6 || parts[0] === "") {
    return {
      ok: false,
      problem: `must have six fields (second minute hour day month day-of-week); it has ${parts[0] === "" ? 0 : parts.length}`,
    };
  }
  const values: number[][] = [];
  for (const [i, spec] of FIELDS.entries()) {
    const result = field(parts[i] ?? "", spec);
    if (typeof result === "string") return { ok: false, problem: result };
    values.push(result);
  }
  const [seconds = [], minutes = [], hours = [], days = [], months = [], daysOfWeek = []] = values;
  return {
    ok: true,
    schedule: {
      seconds,
      minutes,
      hours,
      days: new Set(days),
      months: new Set(months),
      daysOfWeek: new Set(daysOfWeek),
    },
  };
}

/**
 * How far ahead to look. February 29th on a given weekday comes round every 28 years at most, so
 * any schedule that can ever fire does so within this span; one that cannot is never due.
 */
const HORIZON_DAYS = 29 * 366;

/** The first second of a day at or after `fromSecond` (seconds since midnight) that matches. */
function firstTimeOfDay(schedule: Schedule, fromSecond: number): number | undefined {
  for (const h of schedule.hours) {
    if ((h + 1) * 3600 <= fromSecond) continue;
    for (const m of schedule.minutes) {
      if (h * 3600 + (m + 1) * 60 <= fromSecond) continue;
      for (const s of schedule.seconds) {
        const at = h * 3600 + m * 60 + s;
        if (at >= fromSecond) return at;
      }
    }
  }
  return undefined;
}

/** The first instant strictly after `after` that the schedule fires (UTC); undefined: never. */
export function nextOccurrence(schedule: Schedule, after: Date): Date | undefined {
  // Whole seconds: the next candidate is the second after `after`'s.
  const start = Math.floor(after.getTime() / 1000) * 1000 + 1000;
  const firstDay = Math.floor(start / DAY_MS) * DAY_MS;
  for (let i = 0; i <= HORIZON_DAYS; i++) {
    const day = new Date(firstDay + i * DAY_MS);
    if (
      !schedule.months.has(day.getUTCMonth() + 1) ||
      !schedule.days.has(day.getUTCDate()) ||
      !schedule.daysOfWeek.has(day.getUTCDay())
    ) {
      continue;
    }
    const from = i === 0 ? (start - firstDay) / 1000 : 0;
    const second = firstTimeOfDay(schedule, from);
    if (second !== undefined) return new Date(day.getTime() + second * 1000);
  }
  return undefined;
}
