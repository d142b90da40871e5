import type {
  DashboardModel,
  DashboardRow,
  LastRun,
  NextRun,
} from "../../core/dashboard/dashboardModel.js";
import type { EstateStatus } from "../../core/estate/kept.js";
import { STATUS_WORDS, type StatusWord } from "../../core/status/certificateStatus.js";
import type { IssuanceStatus } from "../../core/status/issuanceStatus.js";
import type { PreflightFilter } from "../../core/status/preflightView.js";
import type { WindowPart } from "../../core/status/windowView.js";
import { escapeHtml as h } from "../../lib/text/escapeHtml.js";
import { MINUTE_MS } from "../../lib/time.js";
import { accountsTable, filterHref, showsAccounts, summaryOf } from "./accountsSection.js";
import { ariHtml } from "./ariCell.js";
import { estateSection } from "./estateSection.js";
import { issuanceSection } from "./issuanceSection.js";
import { SCRIPT, STYLE } from "./pageAssets.js";
import {
  matchesPreflight,
  preflightCell,
  preflightFilters,
  preflightShown,
} from "./preflightSection.js";
import { windowHtml } from "./windowCell.js";

/**
 * The dashboard as one HTML document. Every text that comes from elsewhere (names, domains,
 * targets, upstream answers, verification details, run problems) goes through escapeHtml; the
 * markup around it is ours. The page reloads itself (a meta refresh keeps the URL, so the
 * filter stays) and needs no script to be read or filtered.
 */

/**
 * Most rows one page lists (the fewest days left first): a page a browser still renders quickly
 * every five minutes. The counts always cover every certificate; the filter reaches the rest.
 */
export const MAX_ROWS = 1_000;

/** Seconds between reloads. */
export const REFRESH_SECONDS = 300;
/** The bar is full at this many days left or more: the last two months are what a reader compares. */
const FULL_BAR_DAYS = 60;
const CRITICAL_DAYS = 7;

export interface RenderOptions {
  /** Only rows with this status; undefined: all. */
  readonly status?: StatusWord | undefined;
  /** Only rows of this account; undefined: every account. */
  readonly account?: string | undefined;
  /** Only rows whose last preflight is this (`none`: never checked); undefined: all. */
  readonly preflight?: PreflightFilter | undefined;
  /** CERTSCHED_VERIFY_WARN_DAYS: the bar turns amber below it. */
  readonly warnDays: number;
  /**
   * The path the app's routes start with ("/api/"), for the links to other routes; undefined:
   * links relative to the page (right only when it is opened as .../dashboard, no slash after).
   */
  readonly routeBase?: string | undefined;
}

/** "2026-11-23 22:40 UTC": minutes are what a person compares on this page. */
function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** "3 h 5 min", "2 d 4 h", "45 s": the distance between two instants, two units at most. */
export function span(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < MINUTE_MS) return `${Math.round(abs / 1000)} s`;
  const minutes = Math.floor(abs / MINUTE_MS);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return mins > 0 ? `${hours} h ${mins} min` : `${hours} h`;
  return `${mins} min`;
}

function time(iso: string, now: Date): string {
  const ms = new Date(iso).getTime() - now.getTime();
  const relative = ms >= 0 ? `in ${span(ms)}` : `${span(ms)} ago`;
  return `<time datetime="${h(iso)}">${h(when(iso))}</time> <span class="sub">${relative}</span>`;
}

const plural = (n: number, word: string) => `${n} ${word}${Math.abs(n) === 1 ? "" : "s"}`;

/** The days-left bar: its colour says the band, the text beside it says the number. */
function daysCell(row: DashboardRow, warnDays: number): string {
  if (row.daysLeft === null) {
    return `<div class="days"><span class="bar"><span class="fill w0 band-none"></span></span><span class="days-text">unknown</span></div>`;
  }
  const days = row.daysLeft;
  const band = days < CRITICAL_DAYS ? "bad" : days < warnDays ? "warn" : "ok";
  const width = Math.max(0, Math.min(100, Math.round((days / FULL_BAR_DAYS) * 20) * 5));
  // Whole days are floored, so -1 means it expired within the last 24 hours: "1 day ago" would
  // send a reader at 2 a.m. looking at yesterday for a certificate that expired minutes ago.
  const ago = -days - 1;
  const text =
    days >= 0
      ? plural(days, "day")
      : ago === 0
        ? "expired less than a day ago"
        : `expired ${plural(ago, "day")} ago`;
  return `<div class="days"><span class="bar" aria-hidden="true"><span class="fill w${width} band-${band}"></span></span><span class="days-text">${text}</span></div>`;
}

function statusCell(row: DashboardRow & WindowPart): string {
  const critical = row.critical && row.status !== "expired" ? " · critical" : "";
  return `<span class="badge st-${row.status}">${row.status}${critical}</span><span class="sub">${h(row.why)}</span>${windowHtml(row.window)}`;
}

function expiryCell(row: DashboardRow, now: Date): string {
  const served = row.servedExpiry ? time(row.servedExpiry, now) : "not read yet";
  const service = row.serviceExpiry ? time(row.serviceExpiry, now) : "not reported";
  return `<span class="sub">served</span>${served}<span class="sub">service says</span>${service}${ariHtml(row.ari ?? null)}`;
}

function renewalCell(row: DashboardRow, now: Date): string {
  if (!row.lastRenewal) return "none recorded";
  const at = row.lastRenewal.at ? time(row.lastRenewal.at, now) : "not sent";
  return `${h(row.lastRenewal.outcome)}<span class="sub">${at}</span>`;
}

function verificationCell(row: DashboardRow, now: Date): string {
  const v = row.lastVerification;
  if (!v) return "never";
  return `${h(v.status)} ${time(v.at, now)}<span class="sub">${h(v.detail)}</span>`;
}

function tableRow(row: DashboardRow, options: RenderOptions, now: Date, accounts: boolean): string {
  // With several accounts GET /api/certificates/{name} needs the account: the link says it.
  const of =
    accounts && row.account !== undefined ? `?account=${encodeURIComponent(row.account)}` : "";
  const link =
    "path" in row.history
      ? `<a href="${h(`${options.routeBase ?? ""}${row.history.path}${of}`)}" data-keep-key>history</a>`
      : `<span class="sub">${h(row.history.none)}</span>`;
  const cells = [
    ["Certificate", `<span class="name">${h(row.name)}</span>`],
    ...(accounts ? [["Account", h(row.account ?? "")]] : []),
    ["Domain", row.domain === null ? "—" : h(row.domain)],
    ["Target", row.target === null ? "—" : h(row.target)],
    ["Days left", daysCell(row, options.warnDays)],
    ["Status", statusCell(row)],
    ["Preflight", preflightCell(row)],
    ["Expiry", expiryCell(row, now)],
    ["Last renewal", renewalCell(row, now)],
    ["Last verification", verificationCell(row, now)],
    ["History", link],
  ];
  // One element per cell: on a narrow screen the cell is a grid of its label and this.
  const tds = cells
    .map(([label, html]) => `<td data-label="${label}"><div>${html}</div></td>`)
    .join("");
  const account = accounts ? ` data-account="${h(row.account ?? "")}"` : "";
  return `<tr data-status="${row.status}" data-days="${row.daysLeft ?? ""}"${account}>${tds}</tr>`;
}

function lastRunText(run: LastRun | undefined, now: Date): string {
  if (!run) return "none recorded";
  const result = run.failed ? "failed" : "succeeded";
  const of = run.account === undefined ? "" : ` · account ${h(run.account)}`;
  const counts = Object.entries(run.counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${h(k)} ${n}`)
    .join(", ");
  const problems = run.problems.length
    ? `<span class="sub">${run.problems.map(h).join("<br>")}</span>`
    : "";
  return `<span class="badge ${run.failed ? "st-failed" : "st-ok"}">${result}</span> ${time(run.finishedAt, now)}<span class="sub">${h(run.trigger)}${run.dryRun ? " (dry run)" : ""}${of}${counts ? ` · ${counts}` : ""}</span>${problems}`;
}

function nextRunText(next: NextRun, now: Date): string {
  switch (next.kind) {
    case "at":
      return `${time(next.at, now)}<span class="sub">schedule <code>${h(next.schedule)}</code> (UTC)</span>`;
    case "never":
      return `never: the schedule <code>${h(next.schedule)}</code> matches no date`;
    case "unset":
      return "unknown: CERTSCHED_RENEWAL_SCHEDULE is not set";
    case "invalid":
      return `unknown: ${h(next.problem)}`;
  }
}

function filters(
  model: DashboardModel,
  current: StatusWord | undefined,
  account?: string,
  preflight?: PreflightFilter,
): string {
  const chip = (href: string, label: string, count: number, cls: string, on: boolean) =>
    `<li><a class="chip ${cls}" href="${href}" data-keep-key${on ? ' aria-current="page"' : ""}>${label}<b>${count}</b></a></li>`;
  // Filtered by an account, the chips count its certificates (and keep it in their links).
  const summary = summaryOf(model, account);
  const counts = summary?.counts ?? model.counts;
  const total = summary?.certificates ?? model.rows.length;
  const all = chip(filterHref({ account, preflight }), "all", total, "", current === undefined);
  const words = STATUS_WORDS.filter((w) => counts[w] > 0 || w === current).map((w) =>
    chip(filterHref({ status: w, account, preflight }), w, counts[w], `st-${w}`, w === current),
  );
  return `<nav aria-label="Filter by status"><ul class="filters">${all}${words.join("")}</ul></nav>`;
}

/** What the page shows beside the certificates, each section left out when it has nothing. */
export interface PageExtras {
  /** Each account's Certificate Transparency issuances to show. */
  readonly issuances?: readonly IssuanceStatus[] | undefined;
  /** Each account's last estate report, as the estate timer kept it. */
  readonly estates?: readonly EstateStatus[] | undefined;
}

/** The page. */
export function renderDashboard(
  model: DashboardModel,
  options: RenderOptions,
  extras: PageExtras = {},
): string {
  const now = new Date(model.generatedAt);
  const accounts = showsAccounts(model);
  const account = accounts ? options.account : undefined;
  const ct = issuanceSection(extras.issuances ?? [], now, { account, accounts });
  const estate = estateSection(extras.estates ?? [], now, { account, accounts });
  const ofAccount =
    account === undefined ? model.rows : model.rows.filter((r) => r.account === account);
  const matching = ofAccount.filter(
    (r) =>
      (options.status === undefined || r.status === options.status) &&
      matchesPreflight(r, options.preflight),
  );
  const filter = { status: options.status, account, preflight: options.preflight };
  const narrowed = [
    options.status ? `status ${options.status}` : "",
    preflightShown(options.preflight),
  ].filter((w) => w !== "");
  const shown = matching.slice(0, MAX_ROWS);
  const cut =
    matching.length > shown.length
      ? ` Listed: the first ${MAX_ROWS}, fewest days left first; filter by status to see the others.`
      : "";
  const problems = model.problems;
  const problemBox = problems.length
    ? `<section class="problems" role="alert"><p>Not everything could be read:</p><ul>${problems.map((p) => `<li>${h(p)}</li>`).join("")}</ul></section>`
    : "";
  const shownLine =
    narrowed.length > 0
      ? `<p class="shown">Showing ${plural(matching.length, "certificate")} with ${narrowed.join(" and ")} of ${ofAccount.length}.${cut} <a href="${filterHref({ account })}" data-keep-key>Show all</a></p>`
      : `<p class="shown">${plural(ofAccount.length, "certificate")}, fewest days left first.${cut}</p>`;
  const accountHead = accounts ? "<th>Account</th>" : "";
  const body =
    model.rows.length === 0
      ? `<p class="shown" id="empty">No certificates in the inventory yet: certsched adds each one it sees in a due list, creates or renews, so the next sweep fills this page.</p>`
      : `${shownLine}<table><thead><tr><th>Certificate</th>${accountHead}<th>Domain</th><th>Target</th><th>Days left</th><th>Status</th><th>Preflight</th><th>Expiry</th><th>Last renewal</th><th>Last verification</th><th>History</th></tr></thead><tbody>${shown.map((r) => tableRow(r, options, now, accounts)).join("")}</tbody></table>`;
  const requests =
    model.requestsLastWeek === undefined ? "unknown" : String(model.requestsLastWeek);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${REFRESH_SECONDS}">
<meta name="referrer" content="no-referrer">
<title>certsched: certificates</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>certsched: certificates</h1>
<p class="meta">As of <time datetime="${model.generatedAt}">${when(model.generatedAt)}</time> · reloads every ${REFRESH_SECONDS / 60} minutes</p>
<dl class="facts">
<div class="fact"><dt>Last run</dt><dd id="last-run">${lastRunText(model.lastRun, now)}</dd></div>
<div class="fact"><dt>Next scheduled run</dt><dd id="next-run">${nextRunText(model.nextRun, now)}</dd></div>
<div class="fact"><dt>Service requests, last 7 days</dt><dd id="requests">${requests}</dd></div>
</dl>
${filters(model, options.status, account, options.preflight)}
${preflightFilters(ofAccount, filter)}
</header>
<main>
${problemBox}${ct}${estate}${accountsTable(model, filter)}${body}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
