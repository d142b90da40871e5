import { describe, expect, it } from "vitest";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import type { AccountSettings, Env } from "../../../../shared/core/settings.js";
import { OPEN_CALENDAR } from "../../../../shared/core/windows/calendar.js";
import { ConfigError } from "../../../../shared/lib/errors.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../../../shared/lib/time.js";

/*
 * The renewal calendar's settings through loadSettings, as the app and the CLI load them: the
 * single-account form and declared accounts, what each account's calendar holds, every
 * problem reported together naming setting, account, entry and field.
 */

const BASE: Env = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "portal-subscription",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

/** A declared account's object with inline credentials. */
function account(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    baseUrl: "https://certs.example.com",
    subscription: `sub-${name}`,
    apiKey: `api-key-of-${name}-0123456789`,
    tenantId: "t",
    clientId: "c",
    clientSecret: `client-secret-of-${name}-0123`,
    ...extra,
  };
}

const BERLIN = { start: "0 9 * * 2-4", duration: "7h", timeZone: "Europe/Berlin" };
const json = (value: unknown) => JSON.stringify(value);

function configError(env: Env): ConfigError {
  try {
    loadSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected loadSettings to throw a ConfigError");
}

const calendarOf = (accounts: readonly AccountSettings[], name: string) =>
  accounts.find((a) => a.name === name)?.renewalCalendar;

describe("nothing declared", () => {
  it("every account's calendar is the open one", () => {
    const single = loadSettings(BASE);
    const declared = loadSettings({ CERTSCHED_ACCOUNTS: json([account("a"), account("b")]) });

    expect(single.renewalCalendar).toEqual(OPEN_CALENDAR);
    expect(single.accounts[0]?.renewalCalendar).toEqual(OPEN_CALENDAR);
    expect(declared.accounts.map((a) => a.renewalCalendar)).toEqual([OPEN_CALENDAR, OPEN_CALENDAR]);
  });
});

describe("the single-account form", () => {
  it("a valid declaration round-trips into the calendar", () => {
    const s = loadSettings({
      ...BASE,
      CERTSCHED_RENEWAL_WINDOWS: json([
        BERLIN,
        { ...BERLIN, start: "0 10 * * 6", duration: "90m", certificates: ["api-*"] },
      ]),
      CERTSCHED_RENEWAL_FREEZES: json([
        { from: "2026-12-20", to: "2027-01-05", reason: "year-end", timeZone: "Europe/Berlin" },
      ]),
      CERTSCHED_CERTIFICATE_POLICY: json([{ certificates: ["legacy-*"], policy: "disabled" }]),
      CERTSCHED_WINDOW_MARGIN: "5d",
      CERTSCHED_WINDOW_JITTER: "0",
    });

    expect(s.renewalCalendar).toEqual({
      windows: [
        {
          label: "CERTSCHED_RENEWAL_WINDOWS[0]",
          start: "0 9 * * 2-4",
          durationMs: 7 * HOUR_MS,
          timeZone: "Europe/Berlin",
          certificates: undefined,
        },
        {
          label: "CERTSCHED_RENEWAL_WINDOWS[1]",
          start: "0 10 * * 6",
          durationMs: 90 * MINUTE_MS,
          timeZone: "Europe/Berlin",
          certificates: ["api-*"],
        },
      ],
      freezes: [
        {
          label: "CERTSCHED_RENEWAL_FREEZES[0]",
          // Midnight in Berlin (CET, UTC+1); the date-only `to` holds its whole day.
          from: new Date("2026-12-19T23:00:00Z"),
          to: new Date("2027-01-05T23:00:00Z"),
          reason: "year-end",
        },
      ],
      policies: [
        {
          label: "CERTSCHED_CERTIFICATE_POLICY[0]",
          certificates: ["legacy-*"],
          policy: "disabled",
        },
      ],
      marginMs: 5 * DAY_MS,
      jitterMs: 0,
      warnings: [],
    });
    expect(s.accounts[0]?.renewalCalendar).toEqual(s.renewalCalendar);
  });

  it("the margin and the jitter default to 3d and 30m", () => {
    const s = loadSettings({ ...BASE, CERTSCHED_RENEWAL_WINDOWS: json([BERLIN]) });
    expect(s.renewalCalendar.marginMs).toBe(3 * DAY_MS);
    expect(s.renewalCalendar.jitterMs).toBe(30 * MINUTE_MS);
  });

  it.each([
    ["CERTSCHED_WINDOW_MARGIN", "30m", "must be from 1h to 60d"],
    ["CERTSCHED_WINDOW_MARGIN", "61d", "must be from 1h to 60d"],
    ["CERTSCHED_WINDOW_MARGIN", "soon", "must be a duration like 2h, 90m, 30s or PT2H"],
    ["CERTSCHED_WINDOW_JITTER", "7h", "must be from 0 to 6h"],
    ["CERTSCHED_WINDOW_JITTER", "-1m", "must be a duration like 2h, 90m, 30s or PT2H"],
  ])("%s=%s is refused: %s", (name, value, message) => {
    expect(configError({ ...BASE, [name]: value }).problems).toEqual([{ name, message }]);
  });

  it.each([
    ["CERTSCHED_RENEWAL_WINDOWS", "{", /^is not valid JSON.*array of window objects$/],
    ["CERTSCHED_RENEWAL_WINDOWS", json(BERLIN), /^must be a JSON array of window objects$/],
    ["CERTSCHED_RENEWAL_FREEZES", "[1,", /^is not valid JSON.*array of freeze objects$/],
    ["CERTSCHED_CERTIFICATE_POLICY", '"disabled"', /^must be a JSON array of policy objects$/],
  ])("%s=%s is refused: %s", (name, value, message) => {
    expect(configError({ ...BASE, [name]: value }).problems).toEqual([
      { name, message: expect.stringMatching(message) },
    ]);
  });

  it("reports every problem together, with the other settings'", () => {
    const error = configError({
      ...BASE,
      CERTSCHED_RENEWAL_CONCURRENCY: "0",
      CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start: "0 0 9 * * 2" }]),
      CERTSCHED_RENEWAL_FREEZES: json([{ from: "2026-12-20", to: "2026-12-01", reason: "r" }]),
      CERTSCHED_CERTIFICATE_POLICY: json([{ certificates: ["www"], policy: "never" }]),
      CERTSCHED_WINDOW_JITTER: "1d",
    });

    expect(error.problems.map((p) => p.name).sort()).toEqual([
      "CERTSCHED_CERTIFICATE_POLICY[0].policy",
      "CERTSCHED_RENEWAL_CONCURRENCY",
      "CERTSCHED_RENEWAL_FREEZES[0].to",
      "CERTSCHED_RENEWAL_WINDOWS[0].start",
      "CERTSCHED_WINDOW_JITTER",
    ]);
    expect(error.message).toContain(
      "CERTSCHED_RENEWAL_WINDOWS[0].start: must have five fields (minute hour day-of-month month day-of-week); it has 6",
    );
  });
});

describe("declared accounts", () => {
  const GLOBAL_FREEZE = { from: "2026-12-24", to: "2026-12-26", reason: "holidays" };

  it("the settings are the defaults; an account's own lists replace them, its freezes add", () => {
    const s = loadSettings({
      CERTSCHED_RENEWAL_WINDOWS: json([BERLIN]),
      CERTSCHED_RENEWAL_FREEZES: json([GLOBAL_FREEZE]),
      CERTSCHED_CERTIFICATE_POLICY: json([{ certificates: ["legacy-*"], policy: "disabled" }]),
      CERTSCHED_ACCOUNTS: json([
        account("a"),
        account("b", {
          windows: [{ start: "0 22 * * 1-5", duration: "6h", timeZone: "America/New_York" }],
          freezes: [{ from: "2026-11-26", to: "2026-11-27", reason: "Thanksgiving" }],
          certificatePolicy: [],
        }),
      ]),
    });

    const a = calendarOf(s.accounts, "a");
    const b = calendarOf(s.accounts, "b");
    expect(a?.windows.map((w) => w.label)).toEqual(["CERTSCHED_RENEWAL_WINDOWS[0]"]);
    expect(a?.freezes.map((f) => f.label)).toEqual(["CERTSCHED_RENEWAL_FREEZES[0]"]);
    expect(a?.policies.map((p) => p.label)).toEqual(["CERTSCHED_CERTIFICATE_POLICY[0]"]);
    expect(b?.windows).toEqual([
      {
        label: 'CERTSCHED_ACCOUNTS[1] (account "b").windows[0]',
        start: "0 22 * * 1-5",
        durationMs: 6 * HOUR_MS,
        timeZone: "America/New_York",
        certificates: undefined,
      },
    ]);
    expect(b?.freezes.map((f) => [f.label, f.reason])).toEqual([
      ["CERTSCHED_RENEWAL_FREEZES[0]", "holidays"],
      ['CERTSCHED_ACCOUNTS[1] (account "b").freezes[0]', "Thanksgiving"],
    ]);
    expect(b?.freezes[1]?.to).toEqual(new Date("2026-11-28T00:00:00Z"));
    expect(b?.policies).toEqual([]);
    // The app's own view carries the first account's calendar.
    expect(s.renewalCalendar).toEqual(a);
  });

  it("names the account, the list, the entry and the field of every problem", () => {
    const error = configError({
      CERTSCHED_ACCOUNTS: json([
        account("a", { windows: [BERLIN, { ...BERLIN, duration: "0m" }] }),
        account("b", {
          windows: { start: "0 9 * * *" },
          freezes: [{ from: "2026-12-20", to: "2026-12-19", reason: "r" }],
          certificatePolicy: [
            { certificates: ["www"], policy: "disabled" },
            { certificates: ["www"], policy: "renew" },
          ],
        }),
        account("c", { window: [] }),
      ]),
    });

    expect(error.problems).toEqual([
      {
        name: 'CERTSCHED_ACCOUNTS[0] (account "a").windows[1].duration',
        message: "must be more than 0: a window that lasts 0 never opens",
      },
      {
        name: 'CERTSCHED_ACCOUNTS[1] (account "b").windows',
        message: "must be a JSON array of window objects",
      },
      {
        name: 'CERTSCHED_ACCOUNTS[1] (account "b").freezes[0].to',
        message: "must come after from (a date-only to includes its whole day)",
      },
      {
        name: 'CERTSCHED_ACCOUNTS[1] (account "b").certificatePolicy[1].certificates[0]',
        message: `gives "www" the policy "renew", but CERTSCHED_ACCOUNTS[1] (account "b").certificatePolicy[0] gives it "disabled": give each name one policy`,
      },
      {
        name: 'CERTSCHED_ACCOUNTS[2] (account "c")',
        message: "has unknown field(s) window: see docs/accounts.md for the fields",
      },
    ]);
  });

  it("the settings' own problems are named once, by the setting", () => {
    const error = configError({
      CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, timeZone: "+01:00" }]),
      CERTSCHED_ACCOUNTS: json([account("a"), account("b")]),
    });
    expect(error.problems.map((p) => p.name)).toEqual(["CERTSCHED_RENEWAL_WINDOWS[0].timeZone"]);
  });
});

describe("the check at load: a calendar that would never renew is refused", () => {
  it("a start that never matches (30 February)", () => {
    const error = configError({
      ...BASE,
      CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start: "0 0 30 2 *" }]),
    });
    expect(error.problems).toEqual([
      {
        name: "CERTSCHED_RENEWAL_WINDOWS[0].start",
        message: '"0 0 30 2 *" never matches a date in Europe/Berlin: the window never opens',
      },
    ]);
  });

  it("a freeze over every opening", () => {
    const error = configError({
      ...BASE,
      CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start: "0 9 24 12 *" }]),
      CERTSCHED_RENEWAL_FREEZES: json([{ from: "2000-01-01", to: "2099-12-31", reason: "never" }]),
    });
    expect(error.problems).toEqual([
      {
        name: "CERTSCHED_RENEWAL_WINDOWS[0]",
        message: expect.stringMatching(
          /falls in a freeze \(CERTSCHED_RENEWAL_FREEZES\[0\]\): the window never opens$/,
        ),
      },
    ]);
  });

  it("a renewal timer that never fires inside the window (daily 03:00 UTC)", () => {
    const env = { ...BASE, CERTSCHED_RENEWAL_WINDOWS: json([BERLIN]) };

    const error = configError({ ...env, CERTSCHED_RENEWAL_SCHEDULE: "0 0 3 * * *" });
    const hourly = loadSettings({ ...env, CERTSCHED_RENEWAL_SCHEDULE: "0 0 * * * *" });
    // A schedule the host could not read is the host's to refuse: not checked against.
    const unreadable = loadSettings({ ...env, CERTSCHED_RENEWAL_SCHEDULE: "daily" });

    expect(error.problems).toEqual([
      {
        name: "CERTSCHED_RENEWAL_WINDOWS[0]",
        message: expect.stringMatching(
          /^the renewal timer \(CERTSCHED_RENEWAL_SCHEDULE, UTC\) never fires inside its next \d+ opening\(s\)/,
        ),
      },
    ]);
    expect(hourly.renewalCalendar.warnings).toEqual([]);
    expect(unreadable.renewalCalendar.windows).toHaveLength(1);
  });

  it("joins the other settings' problems, in one error", () => {
    const error = configError({
      ...BASE,
      CERTSCHED_RENEWAL_CONCURRENCY: "0",
      CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start: "0 0 30 2 *" }]),
    });
    expect(error.problems.map((p) => p.name)).toEqual([
      "CERTSCHED_RENEWAL_CONCURRENCY",
      "CERTSCHED_RENEWAL_WINDOWS[0].start",
    ]);
  });

  it("names the account of a window many accounts share, and of an account's own", () => {
    const error = configError({
      CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start: "0 0 31 4 *" }]),
      CERTSCHED_ACCOUNTS: json([
        account("a"),
        account("b", { windows: [{ ...BERLIN, start: "0 0 30 2 *" }] }),
      ]),
    });
    expect(error.problems).toEqual([
      {
        name: "CERTSCHED_RENEWAL_WINDOWS[0].start",
        message: `for account "a": "0 0 31 4 *" never matches a date in Europe/Berlin: the window never opens`,
      },
      {
        name: 'CERTSCHED_ACCOUNTS[1] (account "b").windows[0].start',
        message: '"0 0 30 2 *" never matches a date in Europe/Berlin: the window never opens',
      },
    ]);
  });
});

describe("the check at load: warnings", () => {
  it("openings more than 20 days apart load, with a warning in the calendar", () => {
    const s = loadSettings({
      ...BASE,
      CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start: "0 9 1 * *" }]),
    });

    expect(s.renewalCalendar.warnings).toEqual([
      expect.stringMatching(
        /^account "default": from .* no renewal window opens for \d+ days, longer than the service's 20-day list/,
      ),
    ]);
    expect(s.accounts[0]?.renewalCalendar.warnings).toEqual(s.renewalCalendar.warnings);
  });

  it("weekly openings load without one", () => {
    expect(
      loadSettings({ ...BASE, CERTSCHED_RENEWAL_WINDOWS: json([BERLIN]) }).renewalCalendar.warnings,
    ).toEqual([]);
  });
});
