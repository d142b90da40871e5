import type { DashboardRow } from "../../core/dashboard/dashboardModel.js";
import {
  PREFLIGHT_FILTERS,
  type PreflightFilter,
  preflightFilterOf,
} from "../../core/status/preflightView.js";
import { escapeHtml as h } from "../../lib/text/escapeHtml.js";
import { filterHref, type PageFilter } from "./accountsSection.js";

/**
 * The dashboard's preflight parts: the Preflight cell of a row (its status and
 * reasons, the advice on hover and, without script, in a <details> under it) and the preflight
 * filter (all, will-fail, unknown, ready; `none` for never checked when there are any), which
 * works as the status filter does: plain links, both filters kept.
 */

/** What the filter's `none` reads as on the page. */
const FILTER_LABEL: Readonly<Record<PreflightFilter, string>> = {
  ready: "ready",
  "will-fail": "will-fail",
  unknown: "unknown",
  none: "not checked",
};

/** The chips' order: the one to act on first. */
const CHIP_ORDER: readonly PreflightFilter[] = ["will-fail", "unknown", "ready", "none"];

/** Whether a row's last preflight matches the filter (undefined: every row). */
export function matchesPreflight(row: DashboardRow, filter: PreflightFilter | undefined): boolean {
  return filter === undefined || preflightFilterOf(row.preflight) === filter;
}

/** `2026-11-23 09:30 UTC`: as the page's other times. */
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** The Preflight cell: `—` when never checked; else the status, reasons, and what to do. */
export function preflightCell(row: DashboardRow): string {
  const p = row.preflight;
  if (p === null) return `<span class="sub">— not checked</span>`;
  const failed = p.checks.filter((c) => c.status === "fail");
  const open = p.checks.filter((c) => c.status !== "pass");
  const advice = failed.flatMap((c) => (c.advice ? [`${c.reason}: ${c.advice}`] : []));
  const title = advice.length > 0 ? ` title="${h(advice.join("\n"))}"` : "";
  const reasons = p.reasons.length > 0 ? ` (${p.reasons.map(h).join(", ")})` : "";
  const badge = `<span class="badge pf-${p.status}"${title}>${p.status}${reasons}</span>`;
  const at = `<span class="sub">checked <time datetime="${h(p.at)}">${h(when(p.at))}</time></span>`;
  const held = p.blocks
    ? `<span class="sub">renewal held: the sweep sends no request while ${h(p.blocks)} stands (until a preflight passes, this one is over a day old, or the renewal is forced)</span>`
    : "";
  if (open.length === 0) return `${badge}${at}`;
  const items = open
    .map(
      (c) =>
        `<li><code>${h(c.check)}</code> ${h(c.reason ?? c.status)}: ${h(c.detail)}${c.advice ? `<span class="sub">${h(c.advice)}</span>` : ""}</li>`,
    )
    .join("");
  const summary = p.status === "will-fail" ? "what to do" : "why unknown";
  return `${badge}${at}${held}<details><summary>${summary}</summary><ul>${items}</ul></details>`;
}

/** The preflight filter's chips, counted over `rows` (the account's, whatever the status filter). */
export function preflightFilters(rows: readonly DashboardRow[], filter: PageFilter): string {
  const counts = Object.fromEntries(PREFLIGHT_FILTERS.map((f) => [f, 0])) as Record<
    PreflightFilter,
    number
  >;
  for (const r of rows) counts[preflightFilterOf(r.preflight)] += 1;
  const current = filter.preflight;
  const chip = (href: string, label: string, count: number, cls: string, on: boolean) =>
    // Named for what it filters: the status filter has its own "all".
    `<li><a class="chip ${cls}" href="${href}" data-keep-key aria-label="preflight ${label}: ${count}"${on ? ' aria-current="page"' : ""}>${label}<b>${count}</b></a></li>`;
  const all = chip(
    filterHref({ ...filter, preflight: undefined }),
    "all",
    rows.length,
    "",
    current === undefined,
  );
  const chips = CHIP_ORDER.filter((f) => f !== "none" || counts.none > 0 || current === "none").map(
    (f) =>
      chip(
        filterHref({ ...filter, preflight: f }),
        FILTER_LABEL[f],
        counts[f],
        `pf-${f}`,
        f === current,
      ),
  );
  return `<nav aria-label="Filter by preflight"><ul class="filters"><li class="filters-label">preflight</li>${all}${chips.join("")}</ul></nav>`;
}

/** "preflight will-fail": the shown line's words for the filter ("" for none). */
export function preflightShown(filter: PreflightFilter | undefined): string {
  return filter === undefined ? "" : `preflight ${FILTER_LABEL[filter]}`;
}
