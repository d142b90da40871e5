import { describe, expect, it } from "vitest";
import {
  freezeInstant,
  parseFreezes,
  startOfDay,
} from "../../../../shared/app/config/freezeRules.js";

/*
 * Freezes: dates read in the freeze's zone (UTC unless given), a date-only `to` holding its
 * whole day, instants with their offset, and every malformed one refused naming its field.
 */

const L = "CERTSCHED_RENEWAL_FREEZES";

describe("a freeze's dates", () => {
  it("date-only: from at the day's start, to at the end of its day (UTC by default)", () => {
    const { freezes, problems } = parseFreezes(
      [{ from: "2026-12-20", to: "2027-01-05", reason: "year-end change freeze" }],
      L,
    );

    expect(problems).toEqual([]);
    expect(freezes).toEqual([
      {
        label: `${L}[0]`,
        from: new Date("2026-12-20T00:00:00Z"),
        to: new Date("2027-01-06T00:00:00Z"),
        reason: "year-end change freeze",
      },
    ]);
  });

  it("one day: from and to the same date freezes that whole day", () => {
    const { freezes } = parseFreezes([{ from: "2026-03-31", to: "2026-03-31", reason: "r" }], L);
    expect(freezes[0]?.to.getTime()).toBe(Date.parse("2026-04-01T00:00:00Z"));
  });

  it("date-only in a zone: its midnights, the end of the last day included", () => {
    const { freezes } = parseFreezes(
      [{ from: "2026-03-28", to: "2026-03-29", reason: "r", timeZone: "Europe/Berlin" }],
      L,
    );
    // CET before the change, CEST after it: the freeze is 47 hours long.
    expect(freezes[0]?.from).toEqual(new Date("2026-03-27T23:00:00Z"));
    expect(freezes[0]?.to).toEqual(new Date("2026-03-29T22:00:00Z"));
  });

  it("instants keep their offset", () => {
    const { freezes, problems } = parseFreezes(
      [{ from: "2026-12-20T18:00:00+01:00", to: "2026-12-21T06:30Z", reason: "release" }],
      L,
    );

    expect(problems).toEqual([]);
    expect(freezes[0]?.from).toEqual(new Date("2026-12-20T17:00:00Z"));
    expect(freezes[0]?.to).toEqual(new Date("2026-12-21T06:30:00Z"));
  });

  it("a day's start in a zone, either side of DST", () => {
    expect(startOfDay(2026, 12, 20, "Europe/Berlin")).toEqual(new Date("2026-12-19T23:00:00Z"));
    expect(startOfDay(2026, 7, 1, "Europe/Berlin")).toEqual(new Date("2026-06-30T22:00:00Z"));
    expect(startOfDay(2026, 3, 8, "America/New_York")).toEqual(new Date("2026-03-08T05:00:00Z"));
    expect(startOfDay(2026, 3, 9, "America/New_York")).toEqual(new Date("2026-03-09T04:00:00Z"));
    // The month overflows as the calendar does: 2026-12-32 is 2027-01-01.
    expect(startOfDay(2026, 12, 32, "UTC")).toEqual(new Date("2027-01-01T00:00:00Z"));
  });

  it.each([
    ["2026-02-30", "that day does not exist"],
    ["2026-13-01", "that day does not exist"],
    ["1969-12-31", "that day does not exist"],
    ["2026-12-20T24:00:00Z", "that moment does not exist"],
    ["2026-12-20T10:00:00+15:00", "that moment does not exist"],
    ["2026-12-20T10:00:00", undefined],
    ["20.12.2026", undefined],
    ["tomorrow", undefined],
  ])("%s is refused", (text, why) => {
    const out = freezeInstant(text, "UTC", false);
    expect(typeof out).toBe("string");
    expect(out).toMatch(/^must be a date \(YYYY-MM-DD\) or an instant with its offset/);
    if (why) expect(out).toContain(why);
  });
});

describe("bad freezes", () => {
  it.each([
    [{ from: "2026-12-20", to: "2026-12-19", reason: "r" }, `${L}[0].to`, "must come after from"],
    [
      { from: "2026-12-20T10:00Z", to: "2026-12-20T10:00Z", reason: "r" },
      `${L}[0].to`,
      "must come after from",
    ],
    [{ from: "2026-02-30", to: "2026-03-01", reason: "r" }, `${L}[0].from`, "does not exist"],
    [{ from: "2026-12-20", to: "2026-12-24" }, `${L}[0].reason`, "is required"],
    [{ from: "2026-12-20", to: "2026-12-24", reason: " " }, `${L}[0].reason`, "must not be blank"],
    [
      { from: "2026-12-20", to: "2026-12-24", reason: "a\u001b[2Jb" },
      `${L}[0].reason`,
      "must not hold control characters",
    ],
    [
      { from: "2026-12-20", to: "2026-12-24", reason: "x".repeat(10_000) },
      `${L}[0].reason`,
      "must be at most 200 characters",
    ],
    [{ to: "2026-12-24", reason: "r" }, `${L}[0].from`, "is required"],
    [
      { from: "2026-12-20", to: "2026-12-24", reason: "r", timeZone: "+01:00" },
      `${L}[0].timeZone`,
      "is an offset, not a time zone",
    ],
    [
      { from: "2026-12-20", to: "2026-12-24", reason: "r", timeZone: "Europe/Berlln" },
      `${L}[0].timeZone`,
      "is not a known IANA time zone",
    ],
    [{ from: 20261220, to: "2026-12-24", reason: "r" }, `${L}[0].from`, "must be a text"],
    [
      { from: "2026-12-20", to: "2026-12-24", reason: "r", until: "x" },
      `${L}[0]`,
      'has an unknown field "until"',
    ],
  ])("%# is refused at %s: %s", (freeze, name, rule) => {
    const { freezes, problems } = parseFreezes([freeze], L);

    expect(freezes).toEqual([]);
    expect(problems).toEqual([{ name, message: expect.stringContaining(rule) }]);
    // Never the value itself when it is long or holds control characters.
    expect(JSON.stringify(problems)).not.toContain("x".repeat(50));
    expect(JSON.stringify(problems)).not.toContain("\u001b");
  });

  it("reports every freeze's problems together", () => {
    const { problems } = parseFreezes(
      [
        { from: "2026-12-20", to: "2026-12-19", reason: "r" },
        { from: "nope", to: "nope", reason: "r" },
      ],
      L,
    );
    expect(problems.map((p) => p.name)).toEqual([`${L}[0].to`, `${L}[1].from`, `${L}[1].to`]);
  });
});
