import { redact } from "../../lib/redact/redact.js";
import type { AriPart } from "../ari/ariView.js";
import type { RunRecord } from "../history/events.js";
import { WATCH_PREFIX } from "../inventory/watch.js";
import { nextOccurrence, parseSchedule } from "../schedule/ncrontab.js";
import type { AccountSummary } from "../status/accountSummary.js";
import {
  type CertificateStatus,
  STATUS_WORDS,
  type StatusWord,
} from "../status/certificateStatus.js";
import type { PreflightView } from "../status/preflightView.js";

/**
 * What the dashboard shows, read once per page: every certificate of the inventory merged with
 * its ledger row and last verification (shared/status, one status word each), the last run, the
 * next scheduled one and the service requests of the last seven days. Each source is read on its
 * own: one that fails becomes a line in `problems`, and the rest of the page still shows.
 */

/** The request budget's window shown in the header (the budget counts a rolling week). */
export const REQUEST_WINDOW_DAYS = 7;

/** One row of the table. Dates are ISO-8601 UTC; texts are redacted, not yet HTML-escaped. */
export interface DashboardRow extends Partial<AriPart> {
  readonly name: string;
  /** The account whose certificate it is; absent in a one-account model. */
  readonly account?: string;
  readonly domain: string | null;
  readonly target: string | null;
  readonly status: StatusWord;
  /** `expiring` below 7 days, or `expired`. */
  readonly critical: boolean;
  /** Why this status, one line. */
  readonly why: string;
  readonly serviceExpiry: string | null;
  readonly servedExpiry: string | null;
  readonly serviceDaysLeft: number | null;
  readonly servedDaysLeft: number | null;
  /** Whole days left of the expiry users see (served, else the service's); null: unknown. */
  readonly daysLeft: number | null;
  readonly lastRenewal: { readonly at: string | null; readonly outcome: string } | null;
  readonly lastVerification: {
    readonly at: string;
    readonly status: string;
    readonly detail: string;
  } | null;
  /** The last preflight: its status, reasons and checks with advice; null: never run. */
  readonly preflight: PreflightView | null;
  /**
   * The certificate's own page (GET /api/certificates/{name}) as a path relative to
   * /api/dashboard, or why the row has no link (a watched endpoint, a name no path can carry).
   */
  readonly history: { readonly path: string } | { readonly none: string };
}

export type NextRun =
  | { readonly kind: "at"; readonly at: string; readonly schedule: string }
  | { readonly kind: "never"; readonly schedule: string }
  | { readonly kind: "unset" }
  | { readonly kind: "invalid"; readonly problem: string };

export interface LastRun {
  /** The account whose run it was, when the page shows several. */
  readonly account?: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly trigger: string;
  readonly dryRun: boolean;
  readonly failed: boolean;
  readonly counts: Readonly<Record<string, number>>;
  readonly problems: readonly string[];
}

export interface DashboardModel {
  readonly generatedAt: string;
  /** Every certificate, sorted by days left (fewest first; unknown last), then by name. */
  readonly rows: readonly DashboardRow[];
  readonly counts: Readonly<Record<StatusWord, number>>;
  /** undefined: no run recorded (or the history could not be read: see `problems`). */
  readonly lastRun: LastRun | undefined;
  readonly nextRun: NextRun;
  /** Requests sent to the service in the last REQUEST_WINDOW_DAYS; undefined: unknown. */
  readonly requestsLastWeek: number | undefined;
  /** What could not be read, one line each (redacted). */
  readonly problems: readonly string[];
  /**
   * One summary line per account (certificates, failed, stuck, not landed, days to
   * the next expiry), in declaration order; absent in a one-account model.
   */
  readonly accounts?: readonly AccountSummary[];
}

/**
 * WEBSITE_TIME_ZONE values that mean UTC itself: Windows's id and the IANA names Linux plans take
 * (never "GMT Standard Time": that is London, with summer time).
 */
const UTC_ZONES: ReadonlySet<string> = new Set(
  ["UTC", "Etc/UTC", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "Etc/GMT", "Etc/GMT0", "GMT"].map(
    (z) => z.toUpperCase(),
  ),
);

/** The next run of the timer, from its NCRONTAB schedule. */
export function nextRun(
  schedule: string | undefined,
  now: Date,
  timeZone?: string | undefined,
): NextRun {
  if (schedule === undefined || schedule.trim() === "") return { kind: "unset" };
  const zone = timeZone?.trim() ?? "";
  if (zone !== "" && !UTC_ZONES.has(zone.toUpperCase())) {
    return {
      kind: "invalid",
      problem: `the host runs CERTSCHED_RENEWAL_SCHEDULE in WEBSITE_TIME_ZONE (${zone}), which this page does not convert`,
    };
  }
  const parsed = parseSchedule(schedule);
  // The schedule is not echoed when it cannot be read: it is free text in an app setting.
  if (!parsed.ok)
    return { kind: "invalid", problem: `CERTSCHED_RENEWAL_SCHEDULE ${parsed.problem}` };
  const at = nextOccurrence(parsed.schedule, now);
  const text = schedule.trim().split(/\s+/).join(" ");
  return at
    ? { kind: "at", at: at.toISOString(), schedule: text }
    : { kind: "never", schedule: text };
}

/**
 * Where the row's history link goes. The name is one encoded path segment, but some names no
 * segment can carry to GET /api/certificates/{name}: "." and ".." (a browser resolves them, as
 * it does %2E, as dot segments: the link would open another route), "due" in any case (the host
 * matches the literal route certificates/due first: the link would list the due certificates),
 * and a name holding a lone surrogate (it has no UTF-8 form; encodeURIComponent throws, which
 * must not take the whole page down). Those rows say so instead of linking somewhere else.
 */
export function historyOf(name: string): DashboardRow["history"] {
  if (name === "." || name === "..")
    return { none: "no link: a dot segment is not a name a URL carries" };
  if (name.toLowerCase() === "due")
    return { none: "no link: the route certificates/due is the due list" };
  try {
    return { path: `certificates/${encodeURIComponent(name)}` };
  } catch {
    return { none: "no link: the name is not valid Unicode (a lone surrogate)" };
  }
}

/** The row of one certificate's status. */
export function dashboardRow(view: CertificateStatus): DashboardRow {
  const watched = view.certificateName.startsWith(WATCH_PREFIX);
  return {
    name: view.certificateName,
    domain:
      view.inventory?.rootDomain ??
      view.verification?.domain ??
      (watched ? view.certificateName.slice(WATCH_PREFIX.length) : null),
    target: view.inventory?.target ?? (watched ? "watched endpoint" : null),
    status: view.status,
    critical: view.critical,
    why: view.why,
    serviceExpiry: view.expiry.service,
    servedExpiry: view.expiry.served,
    serviceDaysLeft: view.expiry.serviceDaysLeft,
    servedDaysLeft: view.expiry.servedDaysLeft,
    // What users see first, as the status rules read it: served, else the service's word.
    daysLeft: view.expiry.servedDaysLeft ?? view.expiry.serviceDaysLeft,
    lastRenewal: view.ledger
      ? { at: view.ledger.lastRequestedAt, outcome: view.ledger.outcome }
      : null,
    lastVerification: view.verification
      ? {
          at: view.verification.at,
          status: view.verification.status,
          detail: view.verification.detail,
        }
      : null,
    preflight: view.preflight,
    ari: view.ari,
    history: watched ? { none: "watched endpoint" } : historyOf(view.certificateName),
  };
}

/** Fewest days left first; unknown expiries last; then the worse status, then the name. */
export function byDaysLeft(a: DashboardRow, b: DashboardRow): number {
  const da = a.daysLeft ?? Number.POSITIVE_INFINITY;
  const db = b.daysLeft ?? Number.POSITIVE_INFINITY;
  if (da !== db) return da < db ? -1 : 1;
  const sa = STATUS_WORDS.indexOf(a.status);
  const sb = STATUS_WORDS.indexOf(b.status);
  if (sa !== sb) return sa - sb;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The last run as the page shows it: dates as ISO-8601, problems redacted. */
export function lastRunOf(run: RunRecord): LastRun {
  return {
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt.toISOString(),
    trigger: run.trigger,
    dryRun: run.dryRun,
    failed: run.failed,
    counts: run.counts,
    problems: run.problems.map(redact),
  };
}
