import { z } from "zod";
import type { Freeze } from "../../core/windows/calendar.js";
import { timeZoneProblem } from "../../core/windows/windowStart.js";
import type { Problem } from "../../lib/errors.js";
import { declaredText, parseList } from "./declaredList.js";

/**
 * Freezes as declared (CERTSCHED_RENEWAL_FREEZES, an account's `freezes`): `from` and `to` are
 * dates (`2026-12-20`, read in the freeze's `timeZone`, UTC by default; a date-only `to`
 * includes its whole day) or instants with their offset (`2026-12-20T18:00:00+01:00`).
 */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

const DATE_RULE =
  "must be a date (YYYY-MM-DD) or an instant with its offset (2026-12-20T18:00:00+01:00 or …Z)";

/** Whether year-month-day names a day of the calendar (not 2026-02-30), from 1970 on. */
function isDay(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    year >= 1970 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day
  );
}

/** How far `zone`'s wall clock is ahead of UTC at `ms`, in ms. */
function offsetAt(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  }).formatToParts(new Date(ms));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(
    part("year"),
    part("month") - 1,
    part("day"),
    part("hour"),
    part("minute"),
    part("second"),
  );
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * The first instant of a day in `zone`: its midnight, read with the offset in force then (a
 * second pass settles a day that starts on the other side of a DST change).
 */
export function startOfDay(year: number, month: number, day: number, zone: string): Date {
  const wall = Date.UTC(year, month - 1, day);
  const guess = wall - offsetAt(wall, zone);
  return new Date(wall - offsetAt(guess, zone));
}

/**
 * A freeze's `from` or `to` as an instant, or the rule it breaks. A date-only `to` is the
 * start of the next day: the freeze holds the whole of the day it names.
 */
export function freezeInstant(text: string, zone: string, end: boolean): Date | string {
  const date = DATE_ONLY.exec(text);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (!isDay(year, month, day)) return `${DATE_RULE}: that day does not exist`;
    return startOfDay(year, month, end ? day + 1 : day, zone);
  }
  const instant = INSTANT.exec(text);
  if (!instant) return DATE_RULE;
  const [year, month, day, hour, minute, second] = instant.slice(1, 7).map((n) => Number(n ?? 0));
  const [offsetHours, offsetMinutes] = [Number(instant[7] ?? 0), Number(instant[8] ?? 0)];
  const inRange =
    isDay(year ?? 0, month ?? 0, day ?? 0) &&
    (hour ?? 0) <= 23 &&
    (minute ?? 0) <= 59 &&
    (second ?? 0) <= 59 &&
    offsetHours <= 14 &&
    offsetMinutes <= 59;
  const ms = Date.parse(text);
  if (!inRange || Number.isNaN(ms)) return `${DATE_RULE}: that moment does not exist`;
  return new Date(ms);
}

const freezeEntry = z
  .strictObject({
    from: declaredText(),
    to: declaredText(),
    reason: declaredText(),
    timeZone: declaredText(timeZoneProblem).optional(),
  })
  .transform((entry, ctx) => {
    const zone = entry.timeZone ?? "UTC";
    const from = freezeInstant(entry.from, zone, false);
    const to = freezeInstant(entry.to, zone, true);
    if (typeof from === "string") ctx.addIssue({ code: "custom", message: from, path: ["from"] });
    if (typeof to === "string") ctx.addIssue({ code: "custom", message: to, path: ["to"] });
    if (typeof from === "string" || typeof to === "string") return z.NEVER;
    if (to.getTime() <= from.getTime()) {
      ctx.addIssue({
        code: "custom",
        message: "must come after from (a date-only to includes its whole day)",
        path: ["to"],
      });
      return z.NEVER;
    }
    return { from, to, reason: entry.reason };
  });

/** The freezes `value` (parsed JSON) declares, labelled `<label>[i]`, and every problem. */
export function parseFreezes(
  value: unknown,
  label: string,
): { freezes: Freeze[]; problems: Problem[] } {
  const list = parseList(value, label, {
    noun: "freeze",
    entry: freezeEntry,
    fields: "from, to, reason and timeZone",
  });
  const freezes = list.entries.map(({ label, value }): Freeze => ({ label, ...value }));
  return { freezes, problems: list.problems };
}
