import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  nextOccurrence,
  parseSchedule,
  type Schedule,
} from "../../../../shared/core/schedule/ncrontab.js";
import { propertyRuns } from "../../../support/fastCheck.js";

function schedule(text: string): Schedule {
  const parsed = parseSchedule(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.schedule;
}

const next = (text: string, after: string) =>
  nextOccurrence(schedule(text), new Date(after))?.toISOString();

describe("nextOccurrence of a six-field NCRONTAB schedule (UTC)", () => {
  it.each([
    // The default sweep: 03:00 daily.
    ["0 0 3 * * *", "2026-11-23T09:30:00.000Z", "2026-11-24T03:00:00.000Z"],
    ["0 0 3 * * *", "2026-11-23T02:59:59.999Z", "2026-11-23T03:00:00.000Z"],
    // Strictly after: at the instant itself, the next one.
    ["0 0 3 * * *", "2026-11-23T03:00:00.000Z", "2026-11-24T03:00:00.000Z"],
    ["0 0 3 * * *", "2026-11-23T03:00:00.500Z", "2026-11-24T03:00:00.000Z"],
    // Every five minutes; every 30 seconds.
    ["0 */5 * * * *", "2026-11-23T09:31:10.000Z", "2026-11-23T09:35:00.000Z"],
    ["*/30 * * * * *", "2026-11-23T09:31:10.000Z", "2026-11-23T09:31:30.000Z"],
    // Lists and ranges, across midnight and the year's end.
    ["0 30 4,16 * * *", "2026-11-23T16:30:01.000Z", "2026-11-24T04:30:00.000Z"],
    ["0 0 9-17 * * 1-5", "2026-12-31T18:00:00.000Z", "2027-01-01T09:00:00.000Z"],
    // Weekdays by name (2026-11-28 is a Saturday, 11-30 a Monday).
    ["0 0 6 * * MON", "2026-11-27T12:00:00.000Z", "2026-11-30T06:00:00.000Z"],
    ["0 0 6 * * sun", "2026-11-27T12:00:00.000Z", "2026-11-29T06:00:00.000Z"],
    // Months by name; `n/step` runs to the end of the field.
    ["0 0 0 1 JAN,jul *", "2026-11-23T00:00:00.000Z", "2027-01-01T00:00:00.000Z"],
    ["0 15/20 * * * *", "2026-11-23T09:56:00.000Z", "2026-11-23T10:15:00.000Z"],
    // Day of month AND day of week (NCrontab), not either: the first Monday among days 1-7.
    ["0 0 8 1-7 * 1", "2026-11-23T00:00:00.000Z", "2026-12-07T08:00:00.000Z"],
    // February 29th on a Monday: 2044.
    ["0 0 0 29 2 1", "2026-11-23T00:00:00.000Z", "2044-02-29T00:00:00.000Z"],
  ])("%s after %s is %s", (text, after, expected) => {
    expect(next(text, after)).toBe(expected);
  });

  it.each([
    // Spring forward in Berlin (02:00 -> 03:00 local on 2026-03-29): 02:30 UTC still exists.
    ["Europe/Berlin", "0 30 2 * * *", "2026-03-29T00:00:00.000Z", "2026-03-29T02:30:00.000Z"],
    // Fall back (01:00 UTC is when Berlin repeats an hour): one occurrence, not two.
    ["Europe/Berlin", "0 0 1 * * *", "2026-10-25T00:30:00.000Z", "2026-10-25T01:00:00.000Z"],
    ["Europe/Berlin", "0 0 1 * * *", "2026-10-25T01:00:00.000Z", "2026-10-26T01:00:00.000Z"],
    // Zones where the local date is not UTC's at the hour asked: the day and weekday are UTC's.
    ["America/Los_Angeles", "0 0 0 31 * *", "2026-03-30T23:30:00.000Z", "2026-03-31T00:00:00.000Z"],
    ["Pacific/Honolulu", "0 0 12 * * SUN", "2026-11-21T00:00:00.000Z", "2026-11-22T12:00:00.000Z"],
  ])(
    "in UTC whatever the machine's zone (TZ=%s): %s after %s is %s",
    (zone, text, after, expected) => {
      const saved = process.env.TZ;
      process.env.TZ = zone;
      try {
        // The zone took: local time is not UTC here, so a local-time reading would differ.
        expect(new Date(after).getTimezoneOffset()).not.toBe(0);
        expect(next(text, after)).toBe(expected);
      } finally {
        if (saved === undefined) delete process.env.TZ;
        else process.env.TZ = saved;
      }
    },
  );

  it("a schedule no date matches has no next occurrence", () => {
    expect(next("0 0 0 31 2 *", "2026-11-23T00:00:00.000Z")).toBeUndefined();
    expect(next("0 0 0 30 2 *", "2026-11-23T00:00:00.000Z")).toBeUndefined();
  });

  it("every result matches each field and lies strictly after the instant asked about", () => {
    const field = (min: number, max: number) =>
      fc.uniqueArray(fc.integer({ min, max }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(
        field(0, 59),
        field(0, 59),
        field(0, 23),
        field(1, 28),
        field(1, 12),
        field(0, 6),
        fc.date({
          min: new Date("2020-01-01Z"),
          max: new Date("2040-01-01Z"),
          noInvalidDate: true,
        }),
        (s, m, hr, d, mo, dow, after) => {
          const text = [s, m, hr, d, mo, dow].map((f) => f.join(",")).join(" ");
          const sched = schedule(text);
          const result = nextOccurrence(sched, after);
          if (result === undefined) throw new Error(`${text}: none after ${after.toISOString()}`);
          expect(result.getTime()).toBeGreaterThan(after.getTime());
          expect(result.getUTCMilliseconds()).toBe(0);
          expect(s).toContain(result.getUTCSeconds());
          expect(m).toContain(result.getUTCMinutes());
          expect(hr).toContain(result.getUTCHours());
          expect(d).toContain(result.getUTCDate());
          expect(mo).toContain(result.getUTCMonth() + 1);
          expect(dow).toContain(result.getUTCDay());
          // Nothing earlier: from one second before the result, the result again.
          expect(nextOccurrence(sched, new Date(result.getTime() - 1000))).toEqual(result);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe("parseSchedule", () => {
  it.each([
    ["0 0 3 * *", "must have six fields (second minute hour day month day-of-week); it has 5"],
    ["", "must have six fields (second minute hour day month day-of-week); it has 0"],
    ["0 0 3 * * * *", "must have six fields (second minute hour day month day-of-week); it has 7"],
    ["60 0 3 * * *", 'second: "60" is not a value or range within 0-59'],
    ["0 0 24 * * *", 'hour: "24" is not a value or range within 0-23'],
    ["0 0 3 0 * *", 'day: "0" is not a value or range within 1-31'],
    ["0 0 3 * 13 *", 'month: "13" is not a value or range within 1-12 (or JAN-DEC)'],
    ["0 0 3 * * 7", 'day-of-week: "7" is not a value or range within 0-6 (or SUN-SAT)'],
    ["0 0 3 * * MONDAY", 'day-of-week: "MONDAY" is not a value or range within 0-6 (or SUN-SAT)'],
    ["0 */0 3 * * *", 'minute: the step after "/" must be a whole number from 1'],
    ["0 0 5-3 * * *", 'hour: the range "5-3" runs backwards'],
    ["0 0 1-2-3 * * *", 'hour: "1-2-3" has more than one "-"'],
    ["0 0 3 * * ?", 'day-of-week: "?" is not a value or range within 0-6 (or SUN-SAT)'],
    ["00:05:00", "must have six fields (second minute hour day month day-of-week); it has 1"],
  ])("%j: %s", (text, problem) => {
    expect(parseSchedule(text)).toEqual({ ok: false, problem });
  });

  it("takes a step of 1, the least there is", () => {
    expect(next("0 */1 * * * *", "2026-11-23T09:31:10.000Z")).toBe("2026-11-23T09:32:00.000Z");
  });

  it("takes extra spaces between fields and around them", () => {
    expect(parseSchedule("  0  0 3 * *   * ").ok).toBe(true);
  });
});
