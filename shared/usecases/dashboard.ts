import { mergeAccountModels } from "../core/dashboard/accountsModel.js";
import {
  byDaysLeft,
  type DashboardModel,
  type DashboardRow,
  dashboardRow,
  type LastRun,
  lastRunOf,
  nextRun,
  REQUEST_WINDOW_DAYS,
} from "../core/dashboard/dashboardModel.js";
import type { History } from "../core/ports/history.js";
import {
  certificateStatus,
  STATUS_WORDS,
  type StatusOptions,
  type StatusWord,
} from "../core/status/certificateStatus.js";
import type { IssuanceStatus } from "../core/status/issuanceStatus.js";
import type { StatusSources } from "../core/status/statusSources.js";
import { ensureError } from "../lib/errors.js";
import { mapWithConcurrency } from "../lib/pool.js";
import { redact } from "../lib/redact/redact.js";
import { DAY_MS } from "../lib/time.js";
import { type EstateReader, type EstateStatus, readEstateStatus } from "./estate/lastEstate.js";
import {
  type CalendarStatusPorts,
  type IssuanceReader,
  readIssuanceStatus,
  statusOptionsFor,
} from "./listStatus.js";
import { loadStatus, statusOptionsOf } from "./steps/loadStatus.js";

/**
 * What the dashboard shows, read once per page (core/dashboard/dashboardModel.ts): every
 * certificate of the inventory merged with its ledger row and last verification, the last run,
 * the next scheduled one and the service requests of the last seven days. Each source is read on
 * its own: one that fails becomes a line in `problems`, and the rest of the page still shows.
 */

/** What the page reads: the inventory, the ledger rows and the history (app/sources.ts). */
export interface DashboardSources {
  readonly status: StatusSources;
  readonly history: History;
}

export interface DashboardOptions {
  readonly now: Date;
  /** CERTSCHED_RENEWAL_GRACE, ms (the stuck rule). */
  readonly graceMs: number;
  /** CERTSCHED_VERIFY_WARN_DAYS. */
  readonly warnDays: number;
  /** CERTSCHED_RENEWAL_SCHEDULE as the host reads it; undefined when unset. */
  readonly schedule: string | undefined;
  /**
   * WEBSITE_TIME_ZONE, when set: the host then runs the schedule in that zone (Windows plans),
   * which this page does not convert, so it says so rather than show a wrong time.
   */
  readonly timeZone?: string | undefined;
  /** The account's renewal calendar, when it declares one: each row then has its `window`. */
  readonly calendar?: StatusOptions["calendar"];
}

export async function loadDashboard(
  sources: DashboardSources,
  options: DashboardOptions,
): Promise<DashboardModel> {
  return (await loadOne(sources, options)).model;
}

/** One account's model, and why its certificates could not be read (when they could not). */
async function loadOne(
  sources: DashboardSources,
  options: DashboardOptions,
): Promise<{ model: DashboardModel; unreadable?: string }> {
  const { now } = options;
  const [status, runs, requests] = await Promise.allSettled([
    // Every certificate, not loadStatus's first 5,000 by name: the rows are sorted by days left
    // and the counts cover all, so a bound by name would hide the most urgent of a large inventory.
    loadStatus(sources.status, { max: Number.POSITIVE_INFINITY }),
    sources.history.runs(1),
    sources.history.requestsSince(new Date(now.getTime() - REQUEST_WINDOW_DAYS * DAY_MS)),
  ]);
  const problems: string[] = [];
  let rows: DashboardRow[] = [];
  if (status.status === "fulfilled") {
    const statusOptions = {
      now,
      graceMs: options.graceMs,
      warnDays: options.warnDays,
      calendar: options.calendar,
    };
    rows = status.value.inputs.map((input) => {
      const view = certificateStatus(input, statusOptions);
      // The row keeps the status's window (the page says "waiting for window (opens ...)").
      return view.window === undefined
        ? dashboardRow(view)
        : { ...dashboardRow(view), window: view.window };
    });
    rows.sort(byDaysLeft);
    problems.push(...status.value.invalid.map((line) => redact(`unreadable row: ${line}`)));
  } else {
    problems.push(cause("certificates could not be read", status.reason));
  }
  const unreadable =
    status.status === "rejected" ? redact(ensureError(status.reason).message) : undefined;
  let lastRun: LastRun | undefined;
  if (runs.status === "fulfilled") {
    const latest = runs.value.items[0];
    lastRun = latest ? lastRunOf(latest) : undefined;
    problems.push(...runs.value.invalid.map((line) => redact(`unreadable run: ${line}`)));
  } else {
    problems.push(cause("the last run could not be read", runs.reason));
  }
  if (requests.status === "rejected") {
    problems.push(cause("the service requests could not be counted", requests.reason));
  }
  const counts = Object.fromEntries(STATUS_WORDS.map((word) => [word, 0])) as Record<
    StatusWord,
    number
  >;
  for (const r of rows) counts[r.status] += 1;
  const model = {
    generatedAt: now.toISOString(),
    rows,
    counts,
    lastRun,
    nextRun: nextRun(options.schedule, now, options.timeZone),
    requestsLastWeek: requests.status === "fulfilled" ? requests.value : undefined,
    problems,
  };
  return unreadable === undefined ? { model } : { model, unreadable };
}

const cause = (what: string, error: unknown) => redact(`${what}: ${ensureError(error).message}`);

/** The host's timer, as the page shows the next run: the settings the host reads itself. */
export interface HostSchedule {
  /** CERTSCHED_RENEWAL_SCHEDULE; undefined when unset. */
  readonly schedule: string | undefined;
  /** WEBSITE_TIME_ZONE; undefined when unset. */
  readonly timeZone?: string | undefined;
}

/** The page's model, and the warn days its legend names (CERTSCHED_VERIFY_WARN_DAYS). */
export interface DashboardPage {
  readonly model: DashboardModel;
  readonly warnDays: number;
  /**
   * Each account's unexpected and pending Certificate Transparency issuances, read best effort
   * (a store that fails is a problem line of its own); accounts without a store are left out.
   */
  readonly issuances: readonly IssuanceStatus[];
  /**
   * Each account's last estate report as the estate timer kept it (never discovered for the
   * page), read best effort; accounts without a store are left out.
   */
  readonly estates: readonly EstateStatus[];
}

/**
 * What the page is judged with, and where it reads the accounts' issuances and last estate
 * reports (when anywhere).
 */
export interface DashboardPorts extends CalendarStatusPorts {
  readonly transparency?: IssuanceReader;
  readonly estate?: EstateReader;
}

type PagePart = { readonly account: string; readonly ports: DashboardPorts };

/** The accounts' issuances and last estates, side by side; those without a store have none. */
async function extrasOf(
  parts: readonly PagePart[],
): Promise<Pick<DashboardPage, "issuances" | "estates">> {
  const [issuances, estates] = await Promise.all([
    Promise.all(parts.map((p) => readIssuanceStatus(p.ports.transparency, p.account))),
    Promise.all(parts.map((p) => readEstateStatus(p.ports.estate, p.account))),
  ]);
  const present = <T>(items: readonly (T | undefined)[]): T[] =>
    items.flatMap((item) => (item === undefined ? [] : [item]));
  return { issuances: present(issuances), estates: present(estates) };
}

/**
 * The dashboard with the same clock and rules as certsched status and GET /api/certificates
 * (the grace and warn days of the settings), and the host's schedule for the next run.
 */
export async function dashboard(
  ports: DashboardPorts,
  sources: DashboardSources,
  host: HostSchedule,
  account = "default",
): Promise<DashboardPage> {
  const options = statusOptionsFor(ports, account);
  const [model, extras] = await Promise.all([
    loadDashboard(sources, { ...options, schedule: host.schedule, timeZone: host.timeZone }),
    extrasOf([{ account, ports }]),
  ]);
  return { model, warnDays: options.warnDays, ...extras };
}

/** One account's part of the page: its name, its clock and settings, its own sources. */
export interface AccountDashboardPart {
  readonly account: string;
  readonly ports: DashboardPorts;
  readonly sources: DashboardSources;
}

/**
 * The dashboard over several accounts: each account's page read from its own
 * sources (at most `concurrency` at once), merged with a summary line per account
 * (core/dashboard/accountsModel.ts). One account alone gives the page it always did. The
 * first account's settings give the warn days of the legend (they are the app's).
 */
export async function dashboardAcross(
  parts: readonly AccountDashboardPart[],
  host: HostSchedule,
  concurrency: number,
): Promise<DashboardPage> {
  const [first, ...others] = parts;
  if (!first) throw new Error("a dashboard needs an account");
  if (others.length === 0) return dashboard(first.ports, first.sources, host, first.account);
  const options = statusOptionsOf(first.ports);
  const [loaded, extras] = await Promise.all([
    mapWithConcurrency(parts, concurrency, async (part) => ({
      account: part.account,
      ...(await loadOne(part.sources, {
        ...statusOptionsFor(part.ports, part.account),
        schedule: host.schedule,
        timeZone: host.timeZone,
      })),
    })),
    extrasOf(parts),
  ]);
  const now = options.now;
  const model = mergeAccountModels(
    loaded,
    now.toISOString(),
    nextRun(host.schedule, now, host.timeZone),
  );
  return { model, warnDays: options.warnDays, ...extras };
}
