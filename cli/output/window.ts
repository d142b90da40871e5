import type { WindowView } from "../../shared/core/status/windowView.js";
import type { RenewalCalendar } from "../../shared/core/windows/calendar.js";
import { AccountCalendar } from "../../shared/core/windows/timing.js";
import type { Palette } from "./color.js";
import type { Cell } from "./table.js";

/**
 * The renewal calendar on the command line: an account's calendar from its settings, and the
 * WINDOW cell of certsched due and status ("open until ...", "waiting: opens ...", "disabled
 * (policy ...)"); nothing when the account declares no calendar.
 */

/** The account's calendar, when its settings declare anything (windows, freezes, policies). */
export function calendarOf(
  settings: { readonly renewalCalendar?: RenewalCalendar | undefined } | undefined,
  account: string,
): AccountCalendar | undefined {
  const declared = settings?.renewalCalendar;
  if (!declared) return undefined;
  const calendar = new AccountCalendar(declared, account);
  return calendar.restricted ? calendar : undefined;
}

/** The WINDOW cell: the calendar's words, yellow when it waits or goes outside, dim disabled. */
export function windowCell(window: WindowView | null | undefined, paint: Palette): Cell {
  if (!window) return "-";
  const tone = {
    open: paint.green,
    waiting: paint.yellow,
    outside: paint.yellow,
    disabled: paint.dim,
  };
  return { text: window.text, paint: tone[window.state] };
}
