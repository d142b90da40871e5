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
  type StatusWord,
} from "../core/status/certificateStatus.js";
import type { StatusSources } from "../core/status/statusSources.js";
import { ensureError } from "../lib/errors.js";
import { redact } from "../lib/redact/redact.js";
import { DAY_MS } from "../lib/time.js";
import { loadStatus, type StatusOptionsPorts, statusOptionsOf } from "./steps/loadStatus.js";

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
}

export async function loadDashboard(
  sources: DashboardSources,
  options: DashboardOptions,
): Promise<DashboardModel> {
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
    const statusOptions = { now, graceMs: options.graceMs, warnDays: options.warnDays };
    rows = status.value.inputs.map((input) =>
      dashboardRow(certificateStatus(input, statusOptions)),
    );
    rows.sort(byDaysLeft);
    problems.push(...status.value.invalid.map((line) => redact(`unreadable row: ${line}`)));
  } else {
    problems.push(cause("certificates could not be read", status.reason));
  }
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
  return {
    generatedAt: now.toISOString(),
    rows,
    counts,
    lastRun,
    nextRun: nextRun(options.schedule, now, options.timeZone),
    requestsLastWeek: requests.status === "fulfilled" ? requests.value : undefined,
    problems,
  };
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
}

/**
 * The dashboard with the same clock and rules as certsched status and GET /api/certificates
 * (the grace and warn days of the settings), and the host's schedule for the next run.
 */
export async function dashboard(
  ports: StatusOptionsPorts,
  sources: DashboardSources,
  host: HostSchedule,
): Promise<DashboardPage> {
  const options = statusOptionsOf(ports);
  const model = await loadDashboard(sources, {
    ...options,
    schedule: host.schedule,
    timeZone: host.timeZone,
  });
  return { model, warnDays: options.warnDays };
}
