import type { Problem } from "../../lib/errors.js";
import type { Schedule } from "../schedule/ncrontab.js";
import type { RenewalCalendar } from "./calendar.js";

/**
 * Checks an account's calendar when the settings are loaded: a window that never opens (a cron
 * that never matches, a freeze over every opening), a timer that never fires inside a window
 * are problems, each naming the account, the window and why; a gap between openings longer
 * than the service's 20-day list window is a warning. `timer`: CERTSCHED_RENEWAL_SCHEDULE,
 * when set.
 */
export function checkCalendar(
  _calendar: RenewalCalendar,
  _where: { readonly account: string; readonly timer?: Schedule | undefined; readonly now: Date },
): { readonly problems: Problem[]; readonly warnings: string[] } {
  throw new Error("not yet");
}
