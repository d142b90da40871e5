import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mergeAccountModels } from "../../../../shared/core/dashboard/accountsModel.js";
import type {
  DashboardModel,
  DashboardRow,
} from "../../../../shared/core/dashboard/dashboardModel.js";
import { emptyCounts } from "../../../../shared/core/status/accountSummary.js";
import type { StatusWord } from "../../../../shared/core/status/certificateStatus.js";
import {
  accountsTable,
  filterHref,
  showsAccounts,
} from "../../../../shared/edge/dashboard/accountsSection.js";
import { renderDashboard } from "../../../../shared/edge/dashboard/renderDashboard.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const NOW = "2026-11-23T09:30:00.000Z";

const row = (name: string, status: StatusWord, daysLeft: number): DashboardRow => ({
  name,
  domain: `${name}.example`,
  target: "appServiceHttp",
  status,
  critical: false,
  why: status,
  serviceExpiry: NOW,
  servedExpiry: null,
  serviceDaysLeft: daysLeft,
  servedDaysLeft: null,
  daysLeft,
  lastRenewal: null,
  lastVerification: null,
  preflight: null,
  history: { path: `certificates/${encodeURIComponent(name)}` },
});

function one(rows: DashboardRow[]): DashboardModel {
  const counts = emptyCounts();
  for (const r of rows) counts[r.status] += 1;
  return {
    generatedAt: NOW,
    rows,
    counts,
    lastRun: undefined,
    nextRun: { kind: "unset" },
    requestsLastWeek: 1,
    problems: [],
  };
}

const two = (a = "contoso", b = "fabrikam") =>
  mergeAccountModels(
    [
      { account: a, model: one([row("www", "failed", 5), row("api", "ok", 40)]) },
      { account: b, model: one([row("www", "stuck", 3)]) },
    ],
    NOW,
    { kind: "unset" },
  );

const cells = (html: string, label: string) =>
  [...html.matchAll(new RegExp(`<td data-label="${label}"><div>(.*?)</div></td>`, "g"))].map(
    (m) => m[1],
  );

describe("filterHref", () => {
  it("keeps both filters, escaped, and is ? without any", () => {
    expect(filterHref({})).toBe("?");
    expect(filterHref({ status: "failed" })).toBe("?status=failed");
    expect(filterHref({ status: "failed", account: "a&b" })).toBe(
      "?status=failed&amp;account=a%26b",
    );
  });
});

describe("the dashboard with several accounts", () => {
  it("has an account column, a summary line per account, and history links naming the account", () => {
    const html = renderDashboard(two(), { warnDays: 14 });
    expect(cells(html, "Account").filter((c) => !c?.startsWith("<a"))).toEqual([
      "fabrikam",
      "contoso",
      "contoso",
    ]);
    expect(html).toContain('href="certificates/www?account=fabrikam"');
    expect(html).toContain('href="certificates/www?account=contoso"');
    expect(cells(html, "Certificates")).toEqual(["2", "1"]);
    expect(cells(html, "Stuck")).toEqual(["0", '<span class="badge st-stuck">1</span>']);
    expect(cells(html, "Next expiry")).toEqual(["5 days", "3 days"]);
  });

  it("filters by account: its rows only, its counts on the chips, the filters kept in links", () => {
    const html = renderDashboard(two(), { warnDays: 14, account: "contoso", status: "failed" });
    expect(html.match(/<tr data-status="/g)).toHaveLength(1);
    expect(html).toContain('data-account="contoso"');
    expect(html).toContain("Showing 1 certificate with status failed of 2.");
    expect(html).toContain('href="?account=contoso" data-keep-key');
    expect(html).toContain('href="?status=failed" data-keep-key>Show every account');
    expect(html).toMatch(/href="\?status=ok&amp;account=contoso" data-keep-key>ok<b>1<\/b>/);
  });

  it("shows nothing of accounts for one account", () => {
    const single = one([row("www", "ok", 40)]);
    expect(showsAccounts(single)).toBe(false);
    expect(accountsTable(single, {})).toBe("");
    const html = renderDashboard(single, { warnDays: 14 });
    expect(html).not.toContain("Account");
    expect(html).toContain('href="certificates/www"');
  });

  it("whatever the account names hold, the markup is the same as with plain ones", () => {
    const tags = (html: string) =>
      (html.match(/<[^>]*>/g) ?? []).map((t) => t.replace(/"[^"]*"/g, '""'));
    const plain = tags(renderDashboard(two("aaaa", "bbbb"), { warnDays: 14, account: "aaaa" }));
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (text) => {
        const a = `a<${text}`;
        const b = `b"${text}`;
        const page = renderDashboard(two(a, b), { warnDays: 14, account: a });
        expect(tags(page)).toEqual(plain);
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
