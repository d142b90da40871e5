import { DAY_MS, MINUTE_MS } from "../../lib/time.js";

/**
 * The service writes dates like `2026-12-01T10:00:00.1234567`: no zone designator, seven
 * fractional digits (spec 2.3). They are UTC. `new Date(s)` would read such a string as local
 * time, so the result would depend on the machine's time zone: parse the fields ourselves.
 */
const SERVICE_DATE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/;

/** Parses a service date as UTC; undefined when the text is not such a date. */
export function parseServiceDate(text: string): Date | undefined {
  const m = SERVICE_DATE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = "", zone] = m;
  const ms = Number(frac.padEnd(3, "0").slice(0, 3));
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const local = new Date(Date.UTC(...fields, ms));
  // Date.UTC rolls 2026-02-31 over into March and 10:60 into 11:00; such text is not a date.
  // Checked before the zone offset is applied, which may rightly move the day.
  const roundTrip = [
    local.getUTCFullYear(),
    local.getUTCMonth(),
    local.getUTCDate(),
    local.getUTCHours(),
    local.getUTCMinutes(),
    local.getUTCSeconds(),
  ];
  if (roundTrip.some((value, i) => value !== fields[i])) return undefined;
  let epoch = local.getTime();
  if (zone && zone !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const [zh, zm] = zone.slice(1).split(":").map(Number);
    epoch -= sign * ((zh ?? 0) * 60 + (zm ?? 0)) * MINUTE_MS;
  }
  return new Date(epoch);
}

/** Whole days from `now` until `expiry`, rounded down; negative once expired. */
export function daysLeft(expiry: Date, now: Date): number {
  return Math.floor((expiry.getTime() - now.getTime()) / DAY_MS);
}
