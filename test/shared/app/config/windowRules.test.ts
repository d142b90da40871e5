import { describe, expect, it } from "vitest";
import {
  parsePolicies,
  parseWindows,
  windowDuration,
} from "../../../../shared/app/config/windowRules.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../../../shared/lib/time.js";

/*
 * Windows and per-certificate policies as declared: a valid list becomes the calendar's rules
 * (labels, durations in ms); every malformed entry is refused naming its field and the rule it
 * broke, never quoting a long value or a control character.
 */

const L = "CERTSCHED_RENEWAL_WINDOWS";
const BERLIN = { start: "0 9 * * 2-4", duration: "7h", timeZone: "Europe/Berlin" };

describe("valid windows", () => {
  it("Tuesday to Thursday 09:00-16:00 Berlin, and one for some certificates", () => {
    const { windows, problems } = parseWindows(
      [
        BERLIN,
        {
          start: " 30 1 * * 6 ",
          duration: "PT2H30M",
          timeZone: "America/New_York",
          certificates: ["api-*", "www"],
        },
      ],
      L,
    );

    expect(problems).toEqual([]);
    expect(windows).toEqual([
      {
        label: `${L}[0]`,
        start: "0 9 * * 2-4",
        durationMs: 7 * HOUR_MS,
        timeZone: "Europe/Berlin",
        certificates: undefined,
      },
      {
        label: `${L}[1]`,
        start: "30 1 * * 6",
        durationMs: 2.5 * HOUR_MS,
        timeZone: "America/New_York",
        certificates: ["api-*", "www"],
      },
    ]);
  });

  it("overlapping windows are accepted: their openings simply merge", () => {
    const { windows, problems } = parseWindows(
      [BERLIN, { start: "0 12 * * 2", duration: "8h", timeZone: "Europe/Berlin" }],
      L,
    );
    expect(problems).toEqual([]);
    expect(windows).toHaveLength(2);
  });

  it("no windows at all: [] declares none", () => {
    expect(parseWindows([], L)).toEqual({ windows: [], problems: [] });
  });
});

describe("a window's duration", () => {
  it.each([
    ["1m", MINUTE_MS],
    ["7h", 7 * HOUR_MS],
    ["2d", 2 * DAY_MS],
    ["31d", 31 * DAY_MS],
  ])("%s is %i ms", (text, ms) => {
    expect(windowDuration(text)).toBe(ms);
  });
});

/** [case, the window, the field named, what its message says]. */
const BAD_WINDOWS: [string, Record<string, unknown>, string, RegExp][] = [
  [
    "6 fields",
    { ...BERLIN, start: "0 0 9 * * 2" },
    "start",
    /^must have five fields .*it has 6 \(seconds and years are not supported\)$/,
  ],
  [
    "7 fields",
    { ...BERLIN, start: "0 0 9 * * 2 2027" },
    "start",
    /^must have five fields .*it has 7 \(seconds and years/,
  ],
  ["4 fields", { ...BERLIN, start: "0 9 * *" }, "start", /^must have five fields .*it has 4$/],
  [
    "a minute of 60",
    { ...BERLIN, start: "60 9 * * 2" },
    "start",
    /^its minute field has 60: it must be from 0 to 59$/,
  ],
  [
    "an hour of 24",
    { ...BERLIN, start: "0 24 * * 2" },
    "start",
    /^its hour field has 24: it must be from 0 to 23$/,
  ],
  [
    "a day of 32",
    { ...BERLIN, start: "0 9 32 * *" },
    "start",
    /^its day-of-month field has 32: it must be from 1 to 31$/,
  ],
  [
    "a day of 0",
    { ...BERLIN, start: "0 9 0 * *" },
    "start",
    /^its day-of-month field has 0: it must be from 1 to 31$/,
  ],
  [
    "a month of 13 in a range",
    { ...BERLIN, start: "0 9 1 11-13 *" },
    "start",
    /^its month field has 13: it must be from 1 to 12$/,
  ],
  [
    "a weekday of 8 in a list",
    { ...BERLIN, start: "0 9 * * 1,8" },
    "start",
    /^its day-of-week field has 8: it must be from 0 to 7$/,
  ],
  [
    "a step too large",
    { ...BERLIN, start: "*/90 9 * * *" },
    "start",
    /^is not a valid cron: .*step/,
  ],
  [
    "letters",
    { ...BERLIN, start: "a b c d e" },
    "start",
    /^is not a valid cron: .*illegal characters/,
  ],
  [
    "10,000 characters",
    { ...BERLIN, start: "0 ".repeat(5_000) },
    "start",
    /^must be at most 200 characters \(it has 10000\)$/,
  ],
  [
    "a control character",
    { ...BERLIN, start: "0 9 * * 2\u001b" },
    "start",
    /^must not hold control characters$/,
  ],
  ["blank", { ...BERLIN, start: "  " }, "start", /^must not be blank$/],
  ["missing", { duration: "7h", timeZone: "UTC" }, "start", /^is required$/],
  ["a number", { ...BERLIN, start: 9 }, "start", /^must be a text/],
  ["a negative duration", { ...BERLIN, duration: "-1h" }, "duration", /^must be more than 0/],
  [
    "a zero duration",
    { ...BERLIN, duration: "0m" },
    "duration",
    /^must be more than 0: a window that lasts 0 never opens$/,
  ],
  [
    "a duration under a minute",
    { ...BERLIN, duration: "30s" },
    "duration",
    /^must be from 1m to 31d$/,
  ],
  ["a huge duration", { ...BERLIN, duration: "100000d" }, "duration", /^must be from 1m to 31d$/],
  ["32 days", { ...BERLIN, duration: "32d" }, "duration", /^must be from 1m to 31d$/],
  ["not a duration", { ...BERLIN, duration: "a while" }, "duration", /^must be a duration like 7h/],
  ["a numeric duration", { ...BERLIN, duration: 7 }, "duration", /^must be a text/],
  [
    "an unknown zone",
    { ...BERLIN, timeZone: "Mars/Olympus_Mons" },
    "timeZone",
    /^is not a known IANA time zone/,
  ],
  [
    "an offset-only zone",
    { ...BERLIN, timeZone: "+01:00" },
    "timeZone",
    /^is an offset, not a time zone/,
  ],
  [
    "a GMT offset",
    { ...BERLIN, timeZone: "Etc/GMT-1" },
    "timeZone",
    /^is an offset, not a time zone/,
  ],
  [
    "UTC plus an offset",
    { ...BERLIN, timeZone: "UTC+1" },
    "timeZone",
    /^is an offset, not a time zone/,
  ],
  ["a missing zone", { start: "0 9 * * 2", duration: "7h" }, "timeZone", /^is required$/],
  ["no certificates", { ...BERLIN, certificates: [] }, "certificates", /^must list at least one/],
  [
    "certificates not a list",
    { ...BERLIN, certificates: "api-*" },
    "certificates",
    /^must be a JSON array/,
  ],
  [
    "a blank pattern",
    { ...BERLIN, certificates: ["www", ""] },
    "certificates[1]",
    /^must not be blank$/,
  ],
  [
    "a pattern no name can match (a control character)",
    { ...BERLIN, certificates: ["www\u0007"] },
    "certificates[0]",
    /^must not hold control characters$/,
  ],
  [
    "a long pattern",
    { ...BERLIN, certificates: ["a".repeat(10_000)] },
    "certificates[0]",
    /^must be at most 200/,
  ],
];

describe("bad windows", () => {
  it.each(BAD_WINDOWS)("%s is refused, naming the field", (_case, window, field, rule) => {
    const { windows, problems } = parseWindows([BERLIN, window], L);

    expect(windows).toHaveLength(1);
    expect(problems).toHaveLength(1);
    const [problem] = problems;
    expect(problem?.name).toBe(`${L}[1].${field}`);
    expect(problem?.message).toMatch(rule);
    // Never a 10,000-character value, never a raw control character.
    expect(problem?.message.length).toBeLessThan(400);
    expect(problem?.message).not.toContain("\u001b");
  });

  it("an unknown field is named", () => {
    const { problems } = parseWindows([{ ...BERLIN, strat: "0 9 * * *" }], L);
    expect(problems).toEqual([
      {
        name: `${L}[0]`,
        message:
          'has an unknown field "strat": the fields are start, duration, timeZone and certificates',
      },
    ]);
  });

  it("every window's problems are reported together", () => {
    const { problems } = parseWindows(
      [
        { start: "0 0 9 * * 2", duration: "-1h", timeZone: "Europe/Berlin" },
        { start: "0 9 * * 2", duration: "0m", timeZone: "Europe/Berlin" },
      ],
      L,
    );
    expect(problems.map((p) => p.name)).toEqual([
      `${L}[0].start`,
      `${L}[0].duration`,
      `${L}[1].duration`,
    ]);
  });
});

const P = "CERTSCHED_CERTIFICATE_POLICY";

describe("certificate policies", () => {
  it("a valid list keeps its order and labels", () => {
    const { policies, problems } = parsePolicies(
      [
        { certificates: ["legacy-*"], policy: "disabled" },
        { certificates: ["legacy-api"], policy: "renew" },
      ],
      P,
    );
    expect(problems).toEqual([]);
    expect(policies).toEqual([
      { label: `${P}[0]`, certificates: ["legacy-*"], policy: "disabled" },
      { label: `${P}[1]`, certificates: ["legacy-api"], policy: "renew" },
    ]);
  });

  it("an exact name given twice the same policy is accepted; two policies are refused", () => {
    const same = parsePolicies(
      [
        { certificates: ["www"], policy: "disabled" },
        { certificates: ["www"], policy: "disabled" },
      ],
      P,
    );
    const different = parsePolicies(
      [
        { certificates: ["www", "api"], policy: "disabled" },
        { certificates: ["old", "www"], policy: "renew" },
      ],
      P,
    );

    expect(same.problems).toEqual([]);
    expect(different.problems).toEqual([
      {
        name: `${P}[1].certificates[1]`,
        message: `gives "www" the policy "renew", but ${P}[0] gives it "disabled": give each name one policy`,
      },
    ]);
  });

  it.each([
    [{ policy: "disabled" }, "certificates", /^is required$/],
    [{ certificates: ["www"] }, "policy", /^is required$/],
    [{ certificates: ["www"], policy: "skip" }, "policy", /^must be "renew" or "disabled"$/],
    [{ certificates: [], policy: "renew" }, "certificates", /^must list at least one/],
    [{ certificates: ["www"], policy: "renew", note: "x" }, "", /^has an unknown field "note"/],
  ])("%j is refused at its %s", (policy, field, rule) => {
    const { problems } = parsePolicies([policy], P);
    expect(problems).toEqual([
      { name: field ? `${P}[0].${field}` : `${P}[0]`, message: expect.stringMatching(rule) },
    ]);
  });
});
