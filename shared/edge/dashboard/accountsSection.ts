import type { DashboardModel } from "../../core/dashboard/dashboardModel.js";
import type { AccountSummary } from "../../core/status/accountSummary.js";
import type { StatusWord } from "../../core/status/certificateStatus.js";
import type { PreflightFilter } from "../../core/status/preflightView.js";
import { escapeHtml as h } from "../../lib/text/escapeHtml.js";

/**
 * The dashboard's parts for several accounts: the filter links that keep both
 * filters, the account filter and the summary table (one line per account: certificates,
 * failed, stuck, not landed, days to the next expiry, requests). A page of one account shows
 * none of it, and reads as it always did.
 */

/** The page's filters. */
export interface PageFilter {
  readonly status?: StatusWord | undefined;
  readonly account?: string | undefined;
  /** The last preflight's status, or `none`: never checked. */
  readonly preflight?: PreflightFilter | undefined;
}

/** Whether the page shows accounts: more than one summary line. */
export function showsAccounts(model: DashboardModel): boolean {
  return (model.accounts?.length ?? 0) > 1;
}

/** A link to the page with these filters ("?" for none); an HTML attribute value, escaped. */
export function filterHref(filter: PageFilter): string {
  const params = new URLSearchParams();
  if (filter.status !== undefined) params.set("status", filter.status);
  if (filter.account !== undefined) params.set("account", filter.account);
  if (filter.preflight !== undefined) params.set("preflight", filter.preflight);
  const query = params.toString();
  return h(query === "" ? "?" : `?${query}`);
}

/** The account's summary line, when the page has one. */
export function summaryOf(model: DashboardModel, account: string | undefined) {
  return account === undefined ? undefined : model.accounts?.find((a) => a.name === account);
}

const days = (n: number | null) =>
  n === null ? "unknown" : n < 0 ? `expired (${n})` : `${n} day${n === 1 ? "" : "s"}`;

function summaryRow(a: AccountSummary, filter: PageFilter): string {
  const bad = (n: number, word: StatusWord) =>
    n > 0 ? `<span class="badge st-${word}">${n}</span>` : "0";
  const name = `<a href="${filterHref({ ...filter, account: a.name })}" data-keep-key${filter.account === a.name ? ' aria-current="page"' : ""}>${h(a.name)}</a>`;
  const cells = [
    ["Account", `${name}${a.problem ? `<span class="sub">${h(a.problem)}</span>` : ""}`],
    ["Certificates", String(a.certificates)],
    ["Failed", bad(a.failed, "failed")],
    ["Stuck", bad(a.stuck, "stuck")],
    ["Not landed", bad(a.notLanded, "not-landed")],
    ["Next expiry", days(a.nextExpiryDays)],
    ["Requests, 7 days", a.requests7d === undefined ? "unknown" : String(a.requests7d)],
  ];
  const tds = cells
    .map(([label, html]) => `<td data-label="${label}"><div>${html}</div></td>`)
    .join("");
  return `<tr data-account="${h(a.name)}">${tds}</tr>`;
}

/** The summary table, one line per account, each name a link that filters the page by it. */
export function accountsTable(model: DashboardModel, filter: PageFilter): string {
  if (!showsAccounts(model)) return "";
  const head = [
    "Account",
    "Certificates",
    "Failed",
    "Stuck",
    "Not landed",
    "Next expiry",
    "Requests, 7 days",
  ]
    .map((label) => `<th>${label}</th>`)
    .join("");
  const rows = (model.accounts ?? []).map((a) => summaryRow(a, filter)).join("");
  const all =
    filter.account === undefined
      ? ""
      : `<p class="shown">Showing account ${h(filter.account)}. <a href="${filterHref({ ...filter, account: undefined })}" data-keep-key>Show every account</a></p>`;
  return `<section id="accounts" aria-label="Accounts">${all}<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></section>`;
}
