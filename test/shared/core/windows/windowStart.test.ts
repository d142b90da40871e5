import { describe, expect, it } from "vitest";
import {
  patternProblem,
  patternTest,
  startCron,
  timeZoneProblem,
  windowStartProblem,
} from "../../../../shared/core/windows/windowStart.js";

describe("windowStartProblem", () => {
  it.each([
    ["0 9 * * 2-4"],
    ["*/30 8-17 * * MON-FRI"],
    ["0 9 L * *"],
    ["0 9 15W * *"],
    ["0 9 * * 5#2"],
    ["0 0 30 2 *"], // valid syntax; that it never opens is the load check's to say
  ])("accepts %j", (start) => {
    expect(windowStartProblem(start)).toBeUndefined();
  });

  it.each([
    ["", "must have five fields (minute hour day-of-month month day-of-week); it has 0"],
    ["0 9 * *", "it has 4"],
    ["0 0 9 * * 2", "it has 6 (seconds and years are not supported)"],
    ["0 0 9 * * 2 2027", "it has 7 (seconds and years are not supported)"],
    ["61 9 * * *", "is not a valid cron: Invalid value for minute: 61"],
    ["0 24 * * *", "is not a valid cron"],
    ["0 9 32 * *", "is not a valid cron"],
    ["0 9 * 13 *", "is not a valid cron"],
    ["0 9 * * 8", "is not a valid cron"],
    ["0 9 * * MON-", "is not a valid cron"],
    [`0 9 * * ${"1,".repeat(5000)}1`, "is longer than 200 characters"],
    ["0 9 * *\u0007 *", "contains control characters"],
    ["0 9\u202e * * *", "is not a valid cron"],
  ])("refuses %j: %s", (start, words) => {
    const problem = windowStartProblem(start);
    expect(problem).toContain(words);
    expect(problem?.length ?? 0).toBeLessThan(400);
    // What it says is one printable line, whatever it was given.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may get through.
    expect(problem).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });
});

describe("startCron: the zone's DST", () => {
  const runs = (start: string, zone: string, from: string, n: number) =>
    startCron(start, zone)
      .nextRuns(n, new Date(from))
      .map((d) => d.toISOString());

  it("a start in the hour Berlin skips (2027-03-28 02:30) runs when the clock has jumped, 03:00 CEST", () => {
    expect(runs("30 2 * * *", "Europe/Berlin", "2027-03-27T00:00:00Z", 3)).toEqual([
      "2027-03-27T01:30:00.000Z",
      "2027-03-28T01:00:00.000Z",
      "2027-03-29T00:30:00.000Z",
    ]);
  });

  it("a start in the hour Berlin repeats (2026-10-25 02:30) runs once, the first time", () => {
    expect(runs("30 2 * * *", "Europe/Berlin", "2026-10-24T00:00:00Z", 3)).toEqual([
      "2026-10-24T00:30:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z",
    ]);
  });

  it("New York: 02:30 on 2027-03-14 runs at 03:00 EDT; 01:30 on 2026-11-01 runs once, in EDT", () => {
    expect(runs("30 2 * * *", "America/New_York", "2027-03-13T12:00:00Z", 2)).toEqual([
      "2027-03-14T07:00:00.000Z",
      "2027-03-15T06:30:00.000Z",
    ]);
    expect(runs("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2)).toEqual([
      "2026-11-01T05:30:00.000Z",
      "2026-11-02T06:30:00.000Z",
    ]);
  });

  it("day of month and day of week: either matches, as in Vixie cron", () => {
    expect(runs("0 0 13 * 5", "UTC", "2026-12-01T00:00:00Z", 3)).toEqual([
      "2026-12-04T00:00:00.000Z",
      "2026-12-11T00:00:00.000Z",
      "2026-12-13T00:00:00.000Z",
    ]);
  });

  it("L, W and # mean the last day, the nearest weekday and the nth weekday", () => {
    expect(runs("0 9 L * *", "UTC", "2027-02-01T00:00:00Z", 1)).toEqual([
      "2027-02-28T09:00:00.000Z",
    ]);
    // 2027-05-15 is a Saturday: the nearest weekday is Friday the 14th.
    expect(runs("0 9 15W * *", "UTC", "2027-05-01T00:00:00Z", 1)).toEqual([
      "2027-05-14T09:00:00.000Z",
    ]);
    expect(runs("0 9 * * 2#1", "UTC", "2027-06-01T00:00:00Z", 1)).toEqual([
      "2027-06-01T09:00:00.000Z",
    ]);
  });
});

describe("timeZoneProblem", () => {
  it.each([
    ["Europe/Berlin"],
    ["America/New_York"],
    ["UTC"],
    ["Asia/Kolkata"],
    ["Australia/Lord_Howe"],
  ])("accepts %s", (zone) => expect(timeZoneProblem(zone)).toBeUndefined());

  it.each([
    ["", "is empty"],
    ["Mars/Olympus", "is not a known IANA time zone"],
    ["Berlin", "is not a known IANA time zone"],
    ["+02:00", "is an offset, not a time zone"],
    ["-0500", "is an offset, not a time zone"],
    ["UTC+2", "is an offset, not a time zone"],
    ["GMT-05:00", "is an offset, not a time zone"],
    ["Etc/GMT-2", "is an offset, not a time zone"],
    ["Europe/Berlin\n", "is not an IANA time zone"],
    ["x".repeat(10_000), "is not an IANA time zone"],
  ])("refuses %j: %s", (zone, words) => {
    expect(timeZoneProblem(zone)).toContain(words);
  });
});

describe("patterns", () => {
  it.each([
    ["api-*", "api-eu", true],
    ["api-*", "api-", true],
    ["api-*", "www-api-eu", false],
    ["*-eu", "api-eu", true],
    ["www", "www", true],
    ["www", "www2", false],
    ["web-??", "web-01", true],
    ["web-??", "web-1", false],
    ["a*b*c", "axxbyyc", true],
    ["a*b*c", "axxbyy", false],
    ["*", "anything", true],
    ["ünï-*", "ünï-côde", true],
    ["a.b", "axb", false],
  ])("%s matches %s: %s", (pattern, name, expected) => {
    expect(patternTest(pattern)(name)).toBe(expected);
  });

  it("a pattern of many stars against a long name that misses answers without backtracking blow-up", () => {
    const test = patternTest(`${"*a".repeat(100)}b`);
    expect(test("a".repeat(5000))).toBe(false);
    expect(test(`${"a".repeat(5000)}b`)).toBe(true);
  });

  it.each([
    ["", "is empty: it would match no certificate"],
    ["api\u0000*", "contains control characters"],
    ["x".repeat(300), "is longer than 256 characters"],
  ])("refuses %j", (pattern, words) => {
    expect(patternProblem(pattern)).toContain(words);
  });
});
