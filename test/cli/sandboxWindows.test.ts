import { describe, expect, it } from "vitest";
import { palette } from "../../cli/output/color.js";
import {
  SANDBOX_CALENDAR_ACCOUNT,
  SANDBOX_OUTSIDE,
  SANDBOX_WAITING,
  sandboxCalendars,
  sandboxWindowsNote,
  withCalendars,
} from "../../cli/sandboxWindows.js";
import type { CertificateResult, SweepSummary } from "../../shared/core/renewal/summary.js";
import type { Settings } from "../../shared/core/settings.js";
import { AccountCalendar } from "../../shared/core/windows/timing.js";
import { DAY_MS } from "../../shared/lib/time.js";

/*
 * The sandbox's renewal calendar on any day of the week: its window is never open now, opens
 * after the outside certificate must be renewed and well before the waiting one must, so every
 * npm start shows one of each.
 */

const plain = palette({ isTTY: false, columns: undefined, write: () => {} }, {});

describe("sandboxCalendars", () => {
  // A week of starts, every six hours: whatever the day and hour, the calendar holds.
  const starts = Array.from(
    { length: 28 },
    (_, i) => new Date(Date.UTC(2026, 11, 7) + i * 6 * 3_600_000),
  );

  it.each(starts)("at %s: one waits, one is renewed outside its window", (now) => {
    const calendar = new AccountCalendar(
      sandboxCalendars(now)[SANDBOX_CALENDAR_ACCOUNT] ?? (undefined as never),
      SANDBOX_CALENDAR_ACCOUNT,
    );
    const waiting = calendar.timing(SANDBOX_WAITING, {
      now,
      expiry: new Date(now.getTime() + 19 * DAY_MS),
    });
    const outside = calendar.timing(SANDBOX_OUTSIDE, {
      now,
      expiry: new Date(now.getTime() + 5 * DAY_MS),
    });
    const other = calendar.timing("shop-contoso-com", {
      now,
      expiry: new Date(now.getTime() + 12 * DAY_MS),
    });

    expect(waiting.kind).toBe("waiting");
    expect(outside).toMatchObject({ kind: "outside", because: "expiry" });
    expect(other.kind).toBe("unrestricted");
  });
});

describe("withCalendars", () => {
  it("gives the named account its calendar and leaves the others alone", () => {
    const calendars = sandboxCalendars(new Date("2026-12-07T10:00:00Z"));
    const account = (name: string) => ({ name }) as Settings["accounts"][number];
    const settings = {
      accounts: [account("contoso"), account("fabrikam")],
    } as unknown as Settings;

    const out = withCalendars(settings, calendars);

    expect(out.accounts[0]?.renewalCalendar).toBe(calendars.contoso);
    expect(out.accounts[1]?.renewalCalendar).toBeUndefined();
  });
});

describe("sandboxWindowsNote", () => {
  const result = (certificateName: string, more: Partial<CertificateResult>) =>
    ({ certificateName, outcome: "renewal-scheduled", ...more }) as CertificateResult;
  const summary = (results: CertificateResult[]) => ({ results }) as unknown as SweepSummary;

  it("explains both staged results: when the window opens, and why the other went first", () => {
    const note = sandboxWindowsNote(
      summary([
        result(SANDBOX_OUTSIDE, { window: { state: "outside", because: "expiry", detail: "" } }),
        result(SANDBOX_WAITING, {
          outcome: "waiting",
          window: {
            state: "waiting",
            opensAt: "2026-12-06T08:00:00.000Z",
            opensAtLocal: "2026-12-06 09:00 Europe/Berlin",
            detail: "",
          },
        }),
      ]),
      plain,
      undefined,
    ).join(" ");

    expect(note).toContain(
      `${SANDBOX_WAITING} is due but waits for its window, which opens 2026-12-06 09:00 Europe/Berlin (2026-12-06 08:00 UTC)`,
    );
    expect(note).toContain(
      `${SANDBOX_OUTSIDE} is renewed now, outside its window, because it expires before that window opens plus the 3-day margin`,
    );
  });

  it("says nothing for an account without them (fabrikam, or a run that renewed them all)", () => {
    expect(sandboxWindowsNote(summary([result("wildcard", {})]), plain, 80)).toEqual([]);
  });
});
