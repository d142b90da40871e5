import { parseSchedule, type Schedule } from "../../core/schedule/ncrontab.js";
import {
  type CertificatePolicy,
  DEFAULT_WINDOW_JITTER_MS,
  DEFAULT_WINDOW_MARGIN_MS,
  type Freeze,
  type RenewalCalendar,
  type WindowRule,
} from "../../core/windows/calendar.js";
import { checkCalendar } from "../../core/windows/checkCalendar.js";
import type { Problem } from "../../lib/errors.js";
import { parseJsonSetting } from "./declaredList.js";
import { parseFreezes } from "./freezeRules.js";
import { parsePolicies, parseWindows } from "./windowRules.js";

/**
 * The renewal calendar's settings (docs/settings.md, "Renewal windows"): the windows, freezes
 * and per-certificate policy of the single account, which are also the defaults of declared
 * accounts (their `windows`, `freezes` and `certificatePolicy`), and the margin and jitter
 * every account shares. Parsed into each account's RenewalCalendar, then checked as a whole
 * (checkCalendar): a calendar that never lets a certificate be renewed is refused at load.
 */

export const RENEWAL_WINDOWS_SETTING = "CERTSCHED_RENEWAL_WINDOWS";
export const RENEWAL_FREEZES_SETTING = "CERTSCHED_RENEWAL_FREEZES";
export const CERTIFICATE_POLICY_SETTING = "CERTSCHED_CERTIFICATE_POLICY";

/** What an account's calendar is made of when it declares nothing of its own. */
export interface CalendarDefaults {
  readonly windows: readonly WindowRule[];
  /** For all accounts: an account's own freezes are added to these. */
  readonly freezes: readonly Freeze[];
  readonly policies: readonly CertificatePolicy[];
  /** CERTSCHED_WINDOW_MARGIN in ms. */
  readonly marginMs: number;
  /** CERTSCHED_WINDOW_JITTER in ms. */
  readonly jitterMs: number;
}

/** Nothing declared. */
export const NO_CALENDAR_DEFAULTS: CalendarDefaults = {
  windows: [],
  freezes: [],
  policies: [],
  marginMs: DEFAULT_WINDOW_MARGIN_MS,
  jitterMs: DEFAULT_WINDOW_JITTER_MS,
};

/** The three JSON settings as declared, each one parsed, with every problem. */
export function calendarDefaults(
  raw: Readonly<Record<string, string>>,
  timing: { readonly marginMs: number; readonly jitterMs: number },
): { defaults: CalendarDefaults; problems: Problem[] } {
  const problems: Problem[] = [];
  const read = <T>(
    name: string,
    noun: string,
    parse: (value: unknown, label: string) => T & { problems: Problem[] },
  ): T | undefined => {
    const text = raw[name];
    if (text === undefined) return undefined;
    const json = parseJsonSetting(name, text, noun);
    if (!json.ok) {
      problems.push(json.problem);
      return undefined;
    }
    const parsed = parse(json.value, name);
    problems.push(...parsed.problems);
    return parsed;
  };
  const windows = read(RENEWAL_WINDOWS_SETTING, "window", parseWindows)?.windows ?? [];
  const freezes = read(RENEWAL_FREEZES_SETTING, "freeze", parseFreezes)?.freezes ?? [];
  const policies = read(CERTIFICATE_POLICY_SETTING, "policy", parsePolicies)?.policies ?? [];
  const { marginMs, jitterMs } = timing;
  return { defaults: { windows, freezes, policies, marginMs, jitterMs }, problems };
}

/** The calendar of an account that declares nothing of its own (the single account's). */
export function calendarOf(defaults: CalendarDefaults): RenewalCalendar {
  return {
    windows: defaults.windows,
    freezes: defaults.freezes,
    policies: defaults.policies,
    marginMs: defaults.marginMs,
    jitterMs: defaults.jitterMs,
    warnings: [],
  };
}

/**
 * A declared account's calendar from its object (`item`, as parsed from the JSON): its own
 * `windows` and `certificatePolicy` replace the defaults (`[]`: none for this account), its
 * `freezes` are added to the ones for all accounts. `field` names one of its fields
 * (`CERTSCHED_ACCOUNTS[1] (account "b").windows`).
 */
export function accountCalendar(
  item: Readonly<Record<string, unknown>>,
  field: (name: string) => string,
  defaults: CalendarDefaults,
): { calendar: RenewalCalendar; problems: Problem[] } {
  const problems: Problem[] = [];
  let { windows, policies } = defaults;
  let freezes = defaults.freezes;
  if (item.windows !== undefined) {
    const own = parseWindows(item.windows, field("windows"));
    windows = own.windows;
    problems.push(...own.problems);
  }
  if (item.freezes !== undefined) {
    const own = parseFreezes(item.freezes, field("freezes"));
    freezes = [...defaults.freezes, ...own.freezes];
    problems.push(...own.problems);
  }
  if (item.certificatePolicy !== undefined) {
    const own = parsePolicies(item.certificatePolicy, field("certificatePolicy"));
    policies = own.policies;
    problems.push(...own.problems);
  }
  return { calendar: calendarOf({ ...defaults, windows, freezes, policies }), problems };
}

/** CERTSCHED_RENEWAL_SCHEDULE as the host reads it, when set and valid. */
function timerOf(text: string | undefined): Schedule | undefined {
  if (text === undefined) return undefined;
  const parsed = parseSchedule(text);
  return parsed.ok ? parsed.schedule : undefined;
}

/** Whether a calendar declares anything: an open one has nothing to check. */
function declaresAnything(calendar: RenewalCalendar): boolean {
  return calendar.windows.length + calendar.freezes.length + calendar.policies.length > 0;
}

/**
 * A check's problem, naming the account where the entry's label does not (a window of the
 * settings, which many declared accounts share): `for account "b": …`.
 */
function forAccount(problem: Problem, account: string, declared: boolean): Problem {
  if (!declared || problem.name.includes(`(account "${account}")`)) return problem;
  return { name: problem.name, message: `for account "${account}": ${problem.message}` };
}

/**
 * Checks each account's calendar against the clock and the renewal timer (`schedule`:
 * CERTSCHED_RENEWAL_SCHEDULE). Returns the problems, naming the account when accounts are
 * `declared`, and each calendar (in the accounts' order) with its warnings, for the surfaces.
 */
export function checkedCalendars(
  accounts: readonly { readonly name: string; readonly renewalCalendar: RenewalCalendar }[],
  where: { readonly schedule: string | undefined; readonly now: Date; readonly declared: boolean },
): { calendars: RenewalCalendar[]; problems: Problem[] } {
  const timer = timerOf(where.schedule);
  const problems: Problem[] = [];
  const calendars = accounts.map(({ name, renewalCalendar: calendar }) => {
    if (!declaresAnything(calendar)) return calendar;
    const found = checkCalendar(calendar, { account: name, timer, now: where.now });
    problems.push(...found.problems.map((p) => forAccount(p, name, where.declared)));
    return { ...calendar, warnings: found.warnings };
  });
  return { calendars, problems };
}
