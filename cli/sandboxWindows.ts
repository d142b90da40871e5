import type { SweepSummary } from "../shared/core/renewal/summary.js";
import type { Settings } from "../shared/core/settings.js";
import {
  DEFAULT_WINDOW_MARGIN_MS,
  OPEN_CALENDAR,
  type RenewalCalendar,
} from "../shared/core/windows/calendar.js";
import { DAY_MS, HOUR_MS } from "../shared/lib/time.js";
import type { Palette } from "./output/color.js";
import { wrapToWidth } from "./output/text.js";

/**
 * The sandbox's renewal calendar (docs/renewal-windows.md): the first account, "contoso",
 * declares one window for two of its due certificates, 09:00 to 16:00 Berlin time on the weekday
 * four days ahead, so every `npm start` shows, whatever the day:
 * - SANDBOX_WAITING (19 days left) waiting for that window, with when it opens;
 * - SANDBOX_OUTSIDE (5 days left) renewed now, outside its window, because its expiry comes
 *   before the window opens plus the margin (3 days).
 * Every other certificate is renewed as before (no window covers it).
 */

/** The account whose calendar the sandbox declares. */
export const SANDBOX_CALENDAR_ACCOUNT = "contoso";
/** The certificate that waits for its window (19 days left: it has time). */
export const SANDBOX_WAITING = "api-contoso-com";
/** The certificate renewed outside its window (5 days left: waiting could let it expire). */
export const SANDBOX_OUTSIDE = "www-contoso-com";

/** How far ahead the window's day is: later than 5 days less the margin, sooner than 19 less it. */
const DAYS_AHEAD = 4;

/** The calendar of each sandbox account that declares one, as of `now`. */
export function sandboxCalendars(now: Date): Readonly<Record<string, RenewalCalendar>> {
  const weekday = new Date(now.getTime() + DAYS_AHEAD * DAY_MS).getUTCDay();
  const calendar: RenewalCalendar = {
    ...OPEN_CALENDAR,
    windows: [
      {
        label: `CERTSCHED_ACCOUNTS[0] (account "${SANDBOX_CALENDAR_ACCOUNT}").windows[0]`,
        start: `0 9 * * ${weekday}`,
        durationMs: 7 * HOUR_MS,
        timeZone: "Europe/Berlin",
        certificates: [SANDBOX_WAITING, SANDBOX_OUTSIDE],
      },
    ],
    marginMs: DEFAULT_WINDOW_MARGIN_MS,
    // No jitter: the demo opens at the time it declares (09:00), as a reader expects.
    jitterMs: 0,
  };
  return { [SANDBOX_CALENDAR_ACCOUNT]: calendar };
}

/** The settings with each account's calendar as the sandbox declares it. */
export function withCalendars(
  settings: Settings,
  calendars: Readonly<Record<string, RenewalCalendar>>,
): Settings {
  return {
    ...settings,
    accounts: settings.accounts.map((a) => {
      const calendar = calendars[a.name];
      return calendar ? { ...a, renewalCalendar: calendar } : a;
    }),
  };
}

/**
 * The note under an account's sweep that explains the calendar's two staged results: the one
 * waiting (and when its window opens) and the one renewed outside its window (and why). Empty
 * for an account without them.
 */
export function sandboxWindowsNote(
  summary: SweepSummary,
  paint: Palette,
  width: number | undefined,
): string[] {
  const waiting = summary.results.find(
    (r) => r.certificateName === SANDBOX_WAITING && r.outcome === "waiting",
  );
  const outside = summary.results.find(
    (r) => r.certificateName === SANDBOX_OUTSIDE && r.window?.state === "outside",
  );
  if (!waiting && !outside) return [];
  const said: string[] = [];
  if (waiting) {
    const opens = waiting.window?.opensAtLocal
      ? `, which opens ${waiting.window.opensAtLocal} (${waiting.window.opensAt?.slice(0, 16).replace("T", " ")} UTC)`
      : "";
    said.push(
      `${SANDBOX_WAITING} is due but waits for its window${opens}: it has time, so nothing is sent now`,
    );
  }
  if (outside) {
    said.push(
      `${SANDBOX_OUTSIDE} is renewed now, outside its window, because it expires before that window opens plus the ${DEFAULT_WINDOW_MARGIN_MS / DAY_MS}-day margin: a window never lets a certificate expire`,
    );
  }
  const note = `${paint.bold("Expected in the sandbox:")} ${SANDBOX_CALENDAR_ACCOUNT} declares a renewal window (Berlin time, 09:00 to 16:00, one day a week) for ${SANDBOX_WAITING} and ${SANDBOX_OUTSIDE}. ${said.join("; and ")}. See docs/renewal-windows.md; certsched windows shows a declaration's openings.`;
  return ["", ...wrapToWidth(note, width ?? 80)];
}
