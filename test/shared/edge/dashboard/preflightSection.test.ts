import { describe, expect, it } from "vitest";
import type {
  DashboardModel,
  DashboardRow,
} from "../../../../shared/core/dashboard/dashboardModel.js";
import type { PreflightRecord } from "../../../../shared/core/ports/inventory.js";
import { PREFLIGHT_ADVICE } from "../../../../shared/core/preflight/advice.js";
import { emptyCounts } from "../../../../shared/core/status/accountSummary.js";
import { preflightView } from "../../../../shared/core/status/preflightView.js";
import { dashboardQuery } from "../../../../shared/edge/dashboard/dashboardPage.js";
import {
  matchesPreflight,
  preflightCell,
  preflightFilters,
} from "../../../../shared/edge/dashboard/preflightSection.js";
import { renderDashboard } from "../../../../shared/edge/dashboard/renderDashboard.js";

/* The dashboard's Preflight column and filter: what a reader sees, escaped. */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const NOW = "2026-11-23T09:30:00.000Z";
const now = new Date(NOW);

const caa = (detail: string): PreflightRecord => ({
  at: new Date(now.getTime() - 3_600_000),
  status: "will-fail",
  rootDomain: "contoso.com",
  checks: [
    { check: "caa", status: "fail", reason: "caa-forbids", detail },
    { check: "access", status: "pass", detail: "ARM answered" },
  ],
});
const ready: PreflightRecord = {
  at: new Date(now.getTime() - 3_600_000),
  status: "ready",
  rootDomain: "contoso.com",
  checks: [{ check: "caa", status: "pass", detail: "no CAA record" }],
};
const unknown: PreflightRecord = {
  at: new Date(now.getTime() - 3_600_000),
  status: "unknown",
  rootDomain: "contoso.com",
  checks: [{ check: "dns-zone", status: "unknown", detail: "ARM answered 503" }],
};

const row = (name: string, record: PreflightRecord | undefined): DashboardRow => ({
  name,
  domain: `${name}.example`,
  target: "Cloud App Service",
  status: "ok",
  critical: false,
  why: "40 days left",
  serviceExpiry: NOW,
  servedExpiry: null,
  serviceDaysLeft: 40,
  servedDaysLeft: null,
  daysLeft: 40,
  lastRenewal: null,
  lastVerification: null,
  preflight: preflightView(record, now),
  history: { path: `certificates/${name}` },
});

function model(rows: DashboardRow[]): DashboardModel {
  const counts = emptyCounts();
  for (const r of rows) counts[r.status] += 1;
  return {
    generatedAt: NOW,
    rows,
    counts,
    lastRun: undefined,
    nextRun: { kind: "unset" },
    requestsLastWeek: 0,
    problems: [],
  };
}

const ROWS = [
  row("failing", caa("0 issue digicert.com")),
  row("fine", ready),
  row("undecided", unknown),
  row("never", undefined),
];

/** The certificate names of the rendered table's rows. */
const shown = (html: string) => [...html.matchAll(/<span class="name">([^<]*)</g)].map((m) => m[1]);

describe("the Preflight cell", () => {
  it("a will-fail preflight: the status and reason, advice on hover and in a details element", () => {
    const cell = preflightCell(row("failing", caa("0 issue digicert.com")));
    const advice = PREFLIGHT_ADVICE["caa-forbids"].replaceAll('"', "&quot;");
    expect(cell).toContain(
      `<span class="badge pf-will-fail" title="caa-forbids: ${advice}">will-fail (caa-forbids)</span>`,
    );
    expect(cell).toContain(
      'checked <time datetime="2026-11-23T08:30:00.000Z">2026-11-23 08:30 UTC',
    );
    // Less than a day old and a reason only a person can fix: the sweep holds the renewal.
    expect(cell).toContain("renewal held: the sweep sends no request while caa-forbids stands");
    expect(cell).toContain(
      `<details><summary>what to do</summary><ul><li><code>caa</code> caa-forbids: 0 issue digicert.com<span class="sub">${advice}</span></li></ul></details>`,
    );
    // The passing check is not listed.
    expect(cell).not.toContain("ARM answered");
  });

  it("ready: the badge and when; unknown: why; never checked: a dash", () => {
    expect(preflightCell(row("fine", ready))).toMatch(
      /^<span class="badge pf-ready">ready<\/span><span class="sub">checked /,
    );
    expect(preflightCell(row("fine", ready))).not.toContain("<details>");
    expect(preflightCell(row("undecided", unknown))).toContain(
      "<details><summary>why unknown</summary><ul><li><code>dns-zone</code> unknown: ARM answered 503</li></ul></details>",
    );
    expect(preflightCell(row("never", undefined))).toBe('<span class="sub">— not checked</span>');
  });

  it("a hostile detail is escaped: no tag, no control character reaches the page", () => {
    const cell = preflightCell(row("x", caa('<script>alert("x")</script>\u001b[2J\nnext line')));
    expect(cell).toContain(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;\\u{1b}[2J\\u{0a}next line",
    );
    expect(cell).not.toContain("<script>");
    expect(cell).not.toMatch(CONTROL);
  });
});

describe("the preflight filter", () => {
  it("counts every preflight status over the rows, `not checked` only when there are any", () => {
    const nav = preflightFilters(ROWS, {});
    const chips = [...nav.matchAll(/href="([^"]*)"[^>]*>([^<]*)<b>(\d+)<\/b>/g)].map((m) => [
      m[1],
      m[2],
      m[3],
    ]);
    expect(chips).toEqual([
      ["?", "all", "4"],
      ["?preflight=will-fail", "will-fail", "1"],
      ["?preflight=unknown", "unknown", "1"],
      ["?preflight=ready", "ready", "1"],
      ["?preflight=none", "not checked", "1"],
    ]);
    expect(preflightFilters(ROWS.slice(0, 3), {})).not.toContain("preflight=none");
  });

  it("keeps the other filters in its links and marks the current one", () => {
    const nav = preflightFilters(ROWS, { status: "ok", account: "a&b", preflight: "ready" });
    expect(nav).toContain('href="?status=ok&amp;account=a%26b&amp;preflight=will-fail"');
    expect(nav).toContain(
      'href="?status=ok&amp;account=a%26b" data-keep-key aria-label="preflight all: 4">all',
    );
    expect(nav).toMatch(
      /preflight=ready" data-keep-key aria-label="preflight ready: 1" aria-current="page">ready/,
    );
  });

  it("matchesPreflight: undefined matches every row, `none` the rows never checked", () => {
    expect(ROWS.filter((r) => matchesPreflight(r, undefined))).toHaveLength(4);
    expect(ROWS.filter((r) => matchesPreflight(r, "none")).map((r) => r.name)).toEqual(["never"]);
  });

  it("the page shows only the matching rows, says so, and keeps the filter in the status chips", () => {
    const html = renderDashboard(model(ROWS), { warnDays: 14, preflight: "will-fail" });
    expect(shown(html)).toEqual(["failing"]);
    expect(html).toContain("Showing 1 certificate with preflight will-fail of 4.");
    expect(html).toContain('href="?status=ok&amp;preflight=will-fail"');
    const both = renderDashboard(model(ROWS), { warnDays: 14, status: "ok", preflight: "none" });
    expect(shown(both)).toEqual(["never"]);
    expect(both).toContain("Showing 1 certificate with status ok and preflight not checked of 4.");
    expect(shown(renderDashboard(model(ROWS), { warnDays: 14 }))).toHaveLength(4);
  });

  it("the page's query takes the filter's words and refuses others", () => {
    for (const word of ["ready", "will-fail", "unknown", "none"]) {
      expect(dashboardQuery.parse({ preflight: word }).preflight).toBe(word);
    }
    expect(dashboardQuery.safeParse({ preflight: "blocked" }).success).toBe(false);
    expect(dashboardQuery.safeParse({ preflight: "will-fail,ready" }).success).toBe(false);
  });
});
