import { describe, expect, it } from "vitest";
import { localAndUtc, windowOf, windowWords } from "../../../../shared/core/status/windowView.js";
import {
  DEFAULT_WINDOW_MARGIN_MS,
  OPEN_CALENDAR,
  type RenewalCalendar,
} from "../../../../shared/core/windows/calendar.js";
import { AccountCalendar } from "../../../../shared/core/windows/timing.js";

/*
 * A certificate's renewal window as every surface shows it: a calendar of Tuesday to Thursday,
 * 09:00 to 16:00 in Berlin (no jitter, so the times are the declared ones), a disabled legacy
 * certificate and, in one case, a freeze.
 */

const H = 3_600_000;
const DAY = 24 * H;
/** Monday 7 December 2026, 10:00 UTC: the window opens next on Tuesday 09:00 CET. */
const MONDAY = new Date("2026-12-07T10:00:00.000Z");
const TUESDAY_NOON = new Date("2026-12-08T11:00:00.000Z");

const CALENDAR: RenewalCalendar = {
  ...OPEN_CALENDAR,
  windows: [
    {
      label: "CERTSCHED_RENEWAL_WINDOWS[0]",
      start: "0 9 * * 2-4",
      durationMs: 7 * H,
      timeZone: "Europe/Berlin",
    },
  ],
  policies: [
    {
      label: "CERTSCHED_CERTIFICATE_POLICY[0]",
      certificates: ["legacy-*"],
      policy: "disabled",
    },
  ],
  marginMs: DEFAULT_WINDOW_MARGIN_MS,
  jitterMs: 0,
};
const calendar = new AccountCalendar(CALENDAR, "contoso");

describe("windowOf", () => {
  it("says nothing at all when the account declares no calendar", () => {
    const open = new AccountCalendar(OPEN_CALENDAR, "contoso");
    expect(
      windowOf(open, "www", { now: MONDAY, expiry: new Date(MONDAY.getTime() + 9 * DAY) }),
    ).toEqual({});
    expect(windowOf(undefined, "www", { now: MONDAY })).toEqual({});
  });

  it("waiting: when the next opening is, in the window's zone and in UTC", () => {
    const { window } = windowOf(calendar, "www", {
      now: MONDAY,
      expiry: new Date(MONDAY.getTime() + 15 * DAY),
    });

    expect(window).toMatchObject({
      state: "waiting",
      text: "waiting: opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)",
      window: "CERTSCHED_RENEWAL_WINDOWS[0]",
      opensAt: "2026-12-08T08:00:00.000Z",
      closesAt: "2026-12-08T15:00:00.000Z",
      timeZone: "Europe/Berlin",
    });
    expect(window && windowWords(window)).toBe(
      "waiting for window (opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC))",
    );
  });

  it("open: until when, inside an opening", () => {
    const { window } = windowOf(calendar, "www", {
      now: TUESDAY_NOON,
      expiry: new Date(TUESDAY_NOON.getTime() + 15 * DAY),
    });

    expect(window).toMatchObject({
      state: "open",
      text: "open until 2026-12-08 16:00 Europe/Berlin (2026-12-08 15:00 UTC)",
    });
  });

  it("outside: an expiry before the next opening plus the margin is renewed now, saying why", () => {
    const { window } = windowOf(calendar, "www", {
      now: MONDAY,
      expiry: new Date(MONDAY.getTime() + 2 * DAY),
    });

    expect(window?.state).toBe("outside");
    expect(window?.because).toBe("expiry");
    expect(window?.text).toMatch(/^renewed outside its renewal windows: it must be renewed by \S/);
    expect(window && windowWords(window)).toBe(window?.text);
  });

  it("disabled: the policy's label, with or without a known expiry", () => {
    const known = windowOf(calendar, "legacy-app", { now: MONDAY, expiry: MONDAY });
    const unknown = windowOf(calendar, "legacy-app", { now: MONDAY });

    for (const { window } of [known, unknown]) {
      expect(window).toMatchObject({
        state: "disabled",
        text: "disabled (policy CERTSCHED_CERTIFICATE_POLICY[0])",
        policy: "CERTSCHED_CERTIFICATE_POLICY[0]",
      });
    }
  });

  it("an unknown expiry still says when the next opening is", () => {
    expect(windowOf(calendar, "www", { now: MONDAY }).window).toMatchObject({
      state: "waiting",
      opensAt: "2026-12-08T08:00:00.000Z",
    });
    expect(windowOf(calendar, "www", { now: TUESDAY_NOON }).window?.state).toBe("open");
  });

  it("a certificate no window covers is null (renewed whenever due)", () => {
    const onlyApi = new AccountCalendar(
      {
        ...CALENDAR,
        windows: CALENDAR.windows.map((w) => ({ ...w, certificates: ["api-*"] })),
        policies: [],
      },
      "contoso",
    );

    const { window } = windowOf(onlyApi, "www", {
      now: MONDAY,
      expiry: new Date(MONDAY.getTime() + 15 * DAY),
    });

    expect(window).toBeNull();
  });

  it("a freeze: its reason in the words, and the first opening after it", () => {
    const frozen = new AccountCalendar(
      {
        ...CALENDAR,
        freezes: [
          {
            label: "CERTSCHED_RENEWAL_FREEZES[0]",
            from: new Date("2026-12-06T00:00:00.000Z"),
            to: new Date("2026-12-10T00:00:00.000Z"),
            reason: "<b>release week</b>",
          },
        ],
      },
      "contoso",
    );

    const { window } = windowOf(frozen, "www", {
      now: MONDAY,
      expiry: new Date(MONDAY.getTime() + 30 * DAY),
    });

    expect(window).toMatchObject({
      state: "waiting",
      frozen: { reason: "<b>release week</b>", until: "2026-12-10T00:00:00.000Z" },
      opensAt: "2026-12-10T08:00:00.000Z",
    });
    expect(window?.text).toContain("frozen: <b>release week</b>");
    expect(window && windowWords(window)).toBe(
      "waiting for window (frozen: <b>release week</b>; opens 2026-12-10 09:00 Europe/Berlin (2026-12-10 08:00 UTC))",
    );
  });
});

describe("localAndUtc", () => {
  it.each([
    [
      "2026-12-08T15:00:00.000Z",
      "Europe/Berlin",
      "2026-12-08 16:00 Europe/Berlin (2026-12-08 15:00 UTC)",
    ],
    [
      "2026-07-01T15:00:00.000Z",
      "Europe/Berlin",
      "2026-07-01 17:00 Europe/Berlin (2026-07-01 15:00 UTC)",
    ],
    // Past midnight UTC, the local day is the zone's.
    ["2026-12-09T02:30:00.000Z", "America/New_York", "2026-12-08 21:30"],
  ])("%s in %s reads %s", (iso, zone, text) => {
    expect(localAndUtc(new Date(iso), zone)).toContain(text);
  });
});
