import type { Problem } from "../../lib/errors.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { nextOccurrence, type Schedule } from "../schedule/ncrontab.js";
import type { RenewalCalendar, WindowRule } from "./calendar.js";
import { utcText } from "./localTime.js";
import { OpenTimes } from "./openTimes.js";
import { jitterOffset, WindowClock } from "./windowClock.js";

/** The service lists a certificate as due this long before its expiry. */
export const LIST_WINDOW_MS = 20 * 24 * 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** How far ahead the timer and the gaps are checked. */
const CHECK_SPAN_MS = 366 * DAY_MS;

/** Openings of a window the timer is checked against. */
const TIMER_OPENINGS = 50;

/** Where a check runs: the account, the renewal timer (when set) and the moment. */
export interface CheckContext {
  readonly account: string;
  /** CERTSCHED_RENEWAL_SCHEDULE, parsed, when set. */
  readonly timer?: Schedule | undefined;
  readonly now: Date;
}

/**
 * Checks an account's calendar when the settings are loaded: a window that never opens (a cron
 * that never matches, no time, a freeze over every opening) and a renewal timer that never fires
 * inside a window are problems, naming the window and why; a gap between openings longer than
 * the service's 20-day list window is a warning (certificates due in it are renewed outside the
 * windows).
 */
export function checkCalendar(
  calendar: RenewalCalendar,
  context: CheckContext,
): { readonly problems: Problem[]; readonly warnings: string[] } {
  const problems: Problem[] = [];
  const warnings: string[] = [];
  const clocks: WindowClock[] = [];
  for (const rule of calendar.windows) {
    const clock = windowProblems(rule, calendar, context, problems, warnings);
    if (clock) clocks.push(clock);
  }
  if (problems.length === 0 && (clocks.length > 0 || calendar.freezes.length > 0)) {
    const gap = longestGap(new OpenTimes(clocks, calendar.freezes), context.now);
    if (gap && gap.ms > LIST_WINDOW_MS) warnings.push(gapWarning(context.account, gap));
  }
  return { problems, warnings };
}

/** One window's problems; its clock when it opens. */
function windowProblems(
  rule: WindowRule,
  calendar: RenewalCalendar,
  context: CheckContext,
  problems: Problem[],
  warnings: string[],
): WindowClock | undefined {
  if (!(rule.durationMs > 0)) {
    problems.push({
      name: `${rule.label}.duration`,
      message: "must be more than 0: a window of no time never opens",
    });
    return undefined;
  }
  let clock: WindowClock;
  try {
    clock = new WindowClock(
      rule,
      jitterOffset(context.account, rule.durationMs, calendar.jitterMs),
    );
  } catch {
    problems.push({
      name: `${rule.label}.start`,
      message: "cannot be read as a cron in its time zone",
    });
    return undefined;
  }
  const first = new OpenTimes([clock], calendar.freezes).next(context.now);
  if (!first) {
    problems.push(neverOpens(rule, clock, calendar, context.now));
    return undefined;
  }
  if (context.timer) timerProblems(rule, clock, calendar, context, problems, warnings);
  return clock;
}

function neverOpens(
  rule: WindowRule,
  clock: WindowClock,
  calendar: RenewalCalendar,
  now: Date,
): Problem {
  if (!clock.nextFrom(now)) {
    return {
      name: `${rule.label}.start`,
      message: `"${escapeControl(rule.start)}" never matches a date in ${rule.timeZone}: the window never opens`,
    };
  }
  const labels = calendar.freezes.map((f) => f.label).join(", ");
  return {
    name: rule.label,
    message: `every opening within ten years falls in a freeze (${labels}): the window never opens`,
  };
}

/** The timer must fire inside the window's openings: never is a problem, sometimes a warning. */
function timerProblems(
  rule: WindowRule,
  clock: WindowClock,
  calendar: RenewalCalendar,
  context: CheckContext,
  problems: Problem[],
  warnings: string[],
): void {
  const { timer, now } = context;
  if (!timer) return;
  const times = new OpenTimes([clock], calendar.freezes);
  const end = now.getTime() + CHECK_SPAN_MS;
  let hit = 0;
  let seen = 0;
  // Whole openings only: the one in progress may have no tick left in it, by the hour alone.
  let first = times.next(now);
  if (first && first.opensAt.getTime() <= now.getTime()) first = times.next(first.closesAt);
  for (let o = first; o && seen < TIMER_OPENINGS && o.opensAt.getTime() < end; seen++) {
    const tick = nextOccurrence(timer, new Date(o.opensAt.getTime() - 1));
    if (tick && tick.getTime() < o.closesAt.getTime()) hit += 1;
    o = times.next(o.closesAt);
  }
  const advice =
    'run the renewal timer often enough to fire inside each opening, e.g. CERTSCHED_RENEWAL_SCHEDULE="0 */15 * * * *" (every 15 minutes)';
  if (seen > 0 && hit === 0) {
    problems.push({
      name: rule.label,
      message: `the renewal timer (CERTSCHED_RENEWAL_SCHEDULE, UTC) never fires inside its next ${seen} opening(s): nothing would be renewed inside it; ${advice}`,
    });
  } else if (hit < seen) {
    warnings.push(
      `account "${context.account}": the renewal timer fires inside only ${hit} of the next ${seen} openings of ${rule.label}; ${advice}`,
    );
  }
}

/** The longest time without an opening in the next year, from when. */
function longestGap(times: OpenTimes, now: Date): { ms: number; from: Date } | undefined {
  const end = now.getTime() + CHECK_SPAN_MS;
  let worst: { ms: number; from: Date } | undefined;
  let t = now;
  for (let step = 0; step < 2000 && t.getTime() < end; step++) {
    const o = times.next(t, CHECK_SPAN_MS + LIST_WINDOW_MS);
    const ms = o ? o.opensAt.getTime() - t.getTime() : Number.POSITIVE_INFINITY;
    if (!worst || ms > worst.ms) worst = { ms, from: t };
    if (!o) break;
    // Half-day steps at least: a gap is measured to within 12 hours, in at most 732 steps.
    t = new Date(Math.max(o.closesAt.getTime(), t.getTime() + DAY_MS / 2));
  }
  return worst;
}

function gapWarning(account: string, gap: { ms: number; from: Date }): string {
  const days = Number.isFinite(gap.ms) ? `${Math.floor(gap.ms / DAY_MS)} days` : "more than a year";
  return `account "${account}": from ${utcText(gap.from)} no renewal window opens for ${days}, longer than the service's 20-day list of due certificates: certificates due then whose expiry comes before the next opening plus the margin are renewed outside the windows`;
}
