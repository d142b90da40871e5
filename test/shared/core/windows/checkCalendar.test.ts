import { describe, expect, it } from "vitest";
import { parseSchedule, type Schedule } from "../../../../shared/core/schedule/ncrontab.js";
import {
  OPEN_CALENDAR,
  type RenewalCalendar,
  type WindowRule,
} from "../../../../shared/core/windows/calendar.js";
import { checkCalendar } from "../../../../shared/core/windows/checkCalendar.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = new Date("2026-12-02T10:00:00Z");

function timer(text: string): Schedule {
  const parsed = parseSchedule(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.schedule;
}

function calendar(part: Partial<RenewalCalendar>): RenewalCalendar {
  return { ...OPEN_CALENDAR, ...part };
}

const office: WindowRule = {
  label: "W[0]",
  start: "0 9 * * 2-4",
  durationMs: 7 * HOUR,
  timeZone: "Europe/Berlin",
};

describe("checkCalendar", () => {
  it("a sound declaration with a timer firing inside it: no problem, no warning", () => {
    expect(
      checkCalendar(calendar({ windows: [office] }), {
        account: "a",
        now,
        timer: timer("0 */15 * * * *"),
      }),
    ).toEqual({ problems: [], warnings: [] });
  });

  it("a cron that never matches (February 30th) is refused, naming the window's start", () => {
    const { problems } = checkCalendar(
      calendar({ windows: [{ ...office, start: "0 0 30 2 *" }] }),
      { account: "a", now },
    );
    expect(problems).toEqual([
      {
        name: "W[0].start",
        message: '"0 0 30 2 *" never matches a date in Europe/Berlin: the window never opens',
      },
    ]);
  });

  it.each([[0], [-HOUR], [Number.NaN]])("a duration of %s is refused", (durationMs) => {
    const { problems } = checkCalendar(calendar({ windows: [{ ...office, durationMs }] }), {
      account: "a",
      now,
    });
    expect(problems).toEqual([
      { name: "W[0].duration", message: "must be more than 0: a window of no time never opens" },
    ]);
  });

  it("a freeze that covers every opening is refused, naming the freeze", () => {
    const freezes = [
      {
        label: "F[0]",
        from: new Date("2026-01-01T00:00:00Z"),
        to: new Date("2040-01-01T00:00:00Z"),
        reason: "forever",
      },
    ];
    const { problems } = checkCalendar(calendar({ windows: [office], freezes }), {
      account: "a",
      now,
    });
    expect(problems).toEqual([
      {
        name: "W[0]",
        message: "every opening within ten years falls in a freeze (F[0]): the window never opens",
      },
    ]);
  });

  it("a freeze that covers only some openings is fine", () => {
    const freezes = [
      {
        label: "F[0]",
        from: new Date("2026-12-20T00:00:00Z"),
        to: new Date("2027-01-05T00:00:00Z"),
        reason: "year end",
      },
    ];
    expect(
      checkCalendar(calendar({ windows: [office], freezes }), { account: "a", now }).problems,
    ).toEqual([]);
  });

  it("a renewal timer that never fires inside the window is refused, saying what to use", () => {
    const { problems } = checkCalendar(calendar({ windows: [office] }), {
      account: "a",
      now,
      timer: timer("0 0 3 * * *"),
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]?.name).toBe("W[0]");
    expect(problems[0]?.message).toContain(
      "the renewal timer (CERTSCHED_RENEWAL_SCHEDULE, UTC) never fires inside its next 50 opening(s)",
    );
    expect(problems[0]?.message).toContain('CERTSCHED_RENEWAL_SCHEDULE="0 */15 * * * *"');
  });

  it("an opening in progress with no tick left before it closes is no warning: whole openings count", () => {
    // Wednesday 09:00-16:00 Berlin (08:00-15:00 UTC); at 14:35 UTC the hourly timer's next tick
    // is 15:00 UTC, when the opening closes. Every whole opening has ticks.
    const at = (iso: string) =>
      checkCalendar(calendar({ windows: [office], jitterMs: 0 }), {
        account: "a",
        now: new Date(iso),
        timer: timer("0 0 * * * *"),
      });
    expect(at("2026-12-02T14:35:00Z")).toEqual({ problems: [], warnings: [] });
    expect(at("2026-12-02T07:59:59Z")).toEqual({ problems: [], warnings: [] });
    // A timer at 08:00 UTC only: inside each opening's first instant, counted from the next whole one.
    expect(
      checkCalendar(calendar({ windows: [office], jitterMs: 0 }), {
        account: "a",
        now: new Date("2026-12-02T08:00:00Z"),
        timer: timer("0 0 8 * * *"),
      }),
    ).toEqual({ problems: [], warnings: [] });
  });

  it("a timer that fires inside only some openings is a warning", () => {
    // Monday to Friday 09:00-10:00 UTC; the timer fires at 09:30 UTC on Mondays only.
    const w = { ...office, start: "0 9 * * 1-5", durationMs: HOUR, timeZone: "UTC" };
    const { problems, warnings } = checkCalendar(calendar({ windows: [w], jitterMs: 0 }), {
      account: "a",
      now,
      timer: timer("0 30 9 * * 1"),
    });
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      expect.stringContaining(
        'account "a": the renewal timer fires inside only 10 of the next 50 openings of W[0]',
      ),
    ]);
  });

  it("a gap longer than the service's 20-day list window warns; 20 days or less does not", () => {
    const monthly = { ...office, start: "0 9 1 * *", timeZone: "UTC" };
    const { problems, warnings } = checkCalendar(calendar({ windows: [monthly] }), {
      account: "a",
      now,
    });
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^account "a": from .* no renewal window opens for (2[89]|30) days, longer than the service's 20-day list/,
      ),
    ]);
    const fortnightly = { ...office, start: "0 9 1,15 * *", timeZone: "UTC" };
    expect(
      checkCalendar(calendar({ windows: [fortnightly] }), { account: "a", now }).warnings,
    ).toEqual([]);
  });

  it("a freeze longer than 20 days warns even without windows", () => {
    const freezes = [
      {
        label: "F[0]",
        from: new Date("2026-12-10T00:00:00Z"),
        to: new Date("2027-01-10T00:00:00Z"),
        reason: "audit",
      },
    ];
    const { problems, warnings } = checkCalendar(calendar({ freezes }), { account: "a", now });
    expect(problems).toEqual([]);
    expect(warnings).toEqual([expect.stringContaining("no renewal window opens for 31 days")]);
    const short = [
      { ...freezes[0], to: new Date("2026-12-29T00:00:00Z") },
    ] as RenewalCalendar["freezes"];
    expect(checkCalendar(calendar({ freezes: short }), { account: "a", now }).warnings).toEqual([]);
  });

  it("nothing declared: nothing to say", () => {
    expect(
      checkCalendar(OPEN_CALENDAR, { account: "a", now, timer: timer("0 0 3 * * *") }),
    ).toEqual({ problems: [], warnings: [] });
    expect(DAY).toBeGreaterThan(0);
  });
});
