import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type DashboardModel,
  historyOf,
  nextRun,
} from "../../../../shared/core/dashboard/dashboardModel.js";
import { memoryHistory } from "../../../../shared/core/ports/history.js";
import { memoryInventory } from "../../../../shared/core/ports/inventory.js";
import { routeBaseOf } from "../../../../shared/edge/dashboard/dashboardPage.js";
import { MAX_ROWS, renderDashboard } from "../../../../shared/edge/dashboard/renderDashboard.js";
import { escapeHtml } from "../../../../shared/lib/text/escapeHtml.js";
import { loadDashboard } from "../../../../shared/usecases/dashboard.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/*
 * The dashboard's model and page for names an upstream can send (the due list is JSON: it can
 * carry a lone surrogate, a dot segment, a name equal to a literal route), read from an
 * in-memory inventory: the page must list each, and its history link must lead to that
 * certificate's own route or nowhere.
 */

const NOW = new Date("2026-11-23T09:30:00.000Z");
const DAY_MS = 86_400_000;
/** Where the page is served: links resolve against it as a browser resolves them. */
/** A high surrogate not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const PAGE_URL = "https://certsched.example/api/dashboard?code=k&status=ok";

/** The model of an inventory of `names`, the i-th expiring in `daysOf(i)` days (and 3 hours). */
async function modelOf(
  names: readonly string[],
  daysOf: (i: number) => number = (i) => 20 + i,
): Promise<DashboardModel> {
  const inventory = memoryInventory();
  await inventory.upsert(
    names.map((certificateName, i) => ({
      certificateName,
      id: 100 + i,
      source: "due-list" as const,
      serviceExpiry: new Date(NOW.getTime() + daysOf(i) * DAY_MS + 3 * 3_600_000),
      seenAt: NOW,
    })),
  );
  return loadDashboard(
    {
      status: { inventory, ledgerRows: async () => ({ items: [], invalid: [] }) },
      history: memoryHistory(),
    },
    { now: NOW, graceMs: 2 * 3_600_000, warnDays: 14, schedule: undefined },
  );
}

async function pageOf(names: readonly string[]): Promise<string> {
  const model = await modelOf(names);
  expect(model.problems).toEqual([]);
  return renderDashboard(model, { warnDays: 14 });
}

/** Each row's name (as escaped in the page) and its History cell. */
function historyCells(html: string): Array<{ name: string; cell: string }> {
  return [
    ...html.matchAll(
      /<span class="name">(.*?)<\/span>.*?<td data-label="History"><div>(.*?)<\/div><\/td>/g,
    ),
  ].map(([, name = "", cell = ""]) => ({ name, cell }));
}

/** Where a link of the page takes a browser: the path, its last segment decoded. */
function resolved(href: string): { pathname: string; name: string | undefined } {
  const url = new URL(href.replaceAll("&amp;", "&").replaceAll("&#39;", "'"), PAGE_URL);
  const match = /^\/api\/certificates\/([^/]+)$/.exec(url.pathname);
  return { pathname: url.pathname, name: match ? decodeURIComponent(match[1] ?? "") : undefined };
}

describe("the dashboard's history links", () => {
  it("a name holding a lone surrogate: the page still lists every row (regression: URIError, 500)", async () => {
    const html = await pageOf(["plain-name", "bad\ud800name"]);
    const cells = historyCells(html);

    expect(cells.map((c) => c.name)).toEqual(["plain-name", escapeHtml("bad\ud800name")]);
    expect(cells[0]?.cell).toBe('<a href="certificates/plain-name" data-keep-key>history</a>');
    expect(cells[1]?.cell).toBe(
      '<span class="sub">no link: the name is not valid Unicode (a lone surrogate)</span>',
    );
  });

  it.each([
    [".", "no link: a dot segment is not a name a URL carries"],
    ["..", "no link: a dot segment is not a name a URL carries"],
    ["due", "no link: the route certificates/due is the due list"],
    ["DUE", "no link: the route certificates/due is the due list"],
    ["Due", "no link: the route certificates/due is the due list"],
  ])("%j links nowhere else: it says why it has no link", async (name, why) => {
    const cells = historyCells(await pageOf([name]));

    expect(cells).toEqual([{ name: escapeHtml(name), cell: `<span class="sub">${why}</span>` }]);
  });

  it.each([
    "..a",
    "a..",
    "%2e",
    "%2E%2e",
    ".%2e",
    "dues",
    "due.",
    "a/b",
    "a?b",
    "a#b",
    "a%20b",
    "javascript:alert(1)",
    "//evil.example/x",
    "\\\\evil.example\\x",
    `"' onmouseover='x`,
    "\u202eevil",
  ])("%j: its link opens exactly its own certificate route", async (name) => {
    const [cell] = historyCells(await pageOf([name]));
    const href = /^<a href="([^"]*)" data-keep-key>history<\/a>$/.exec(cell?.cell ?? "")?.[1];

    expect(href).toBeDefined();
    expect(resolved(href ?? "")).toEqual({
      pathname: expect.stringMatching(/^\/api\/certificates\/[^/]+$/),
      name,
    });
  });

  it("any name: a link to its own route (one segment, decoding to the name) or none", () => {
    const name = fc.oneof(
      fc.string({ unit: "binary", minLength: 1 }),
      fc.string({
        unit: fc.constantFrom(".", "%", "2", "e", "E", "/", "\\", "?", "#", "d", "u"),
        minLength: 1,
      }),
      fc.constantFrom(".", "..", "due", "DuE", "\ud800", "a\udfff"),
    );
    fc.assert(
      fc.property(name, (n) => {
        const history = historyOf(n);
        if ("none" in history) {
          // Only the names no segment can carry go without a link.
          expect(
            n === "." || n === ".." || n.toLowerCase() === "due" || LONE_SURROGATE.test(n),
          ).toBe(true);
          return;
        }
        expect(resolved(escapeHtml(history.path))).toEqual({
          pathname: expect.stringMatching(/^\/api\/certificates\/[^/]+$/),
          name: n,
        });
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe("the dashboard with many certificates", () => {
  it("the most urgent come first whatever their names (regression: only the first 5,000 by name were read)", async () => {
    // 6,000 certificates; the three expiring soonest have the last names.
    const count = 6_000;
    const names = Array.from({ length: count }, (_, i) => `cert-${String(i).padStart(5, "0")}`);
    const model = await modelOf(names, (i) => (i >= count - 3 ? count - i : 30 + (i % 300)));
    const html = renderDashboard(model, { warnDays: 14 });
    const listed = [...html.matchAll(/<span class="name">(.*?)<\/span>/g)].map((m) => m[1]);

    expect(model.rows).toHaveLength(count);
    expect(model.counts.expiring + model.counts.ok).toBe(count);
    expect(model.counts.expiring).toBe(3);
    expect(listed.slice(0, 3)).toEqual(["cert-05999", "cert-05998", "cert-05997"]);
    expect(listed).toHaveLength(MAX_ROWS);
    expect(html).toContain(
      `${count} certificates, fewest days left first. Listed: the first ${MAX_ROWS}`,
    );
    expect(html).toMatch(/href="\?status=expiring" data-keep-key>expiring<b>3<\/b>/);
    expect(html).not.toContain('class="problems"');
  });
});

describe("routeBaseOf: where the page's links to other routes start", () => {
  it.each([
    ["https://app.example/api/dashboard", "/api/"],
    ["https://app.example/api/dashboard/", "/api/"],
    ["https://app.example/api/Dashboard?code=k&status=ok", "/api/"],
    ["https://app.example/dashboard", "/"],
    ["https://app.example/my-prefix/v1/dashboard", "/my-prefix/v1/"],
  ])("%s: %j", (url, base) => {
    expect(routeBaseOf(url)).toBe(base);
  });

  it.each([
    // A path the host would not route here; either way no link may leave the app.
    "https://app.example//evil.example/dashboard",
    "https://app.example/%2F%2Fevil.example/dashboard",
    "https://app.example/api/x%22y/dashboard",
    "https://app.example/api/certificates",
    "https://app.example/api/dashboards",
  ])("%s: none (links stay relative)", (url) => {
    expect(routeBaseOf(url)).toBeUndefined();
  });
});

describe("nextRun and WEBSITE_TIME_ZONE", () => {
  it.each(["UTC", "utc", "Etc/UTC", "etc/utc", " Etc/GMT ", "GMT", "", undefined])(
    "%j is UTC: the next run is shown",
    (zone) => {
      expect(nextRun("0 0 3 * * *", NOW, zone)).toEqual({
        kind: "at",
        at: "2026-11-24T03:00:00.000Z",
        schedule: "0 0 3 * * *",
      });
    },
  );

  it.each(["GMT Standard Time", "Europe/London", "W. Europe Standard Time", "Etc/GMT+1"])(
    "%j is not: the page says it does not convert",
    (zone) => {
      expect(nextRun("0 0 3 * * *", NOW, zone)).toMatchObject({
        kind: "invalid",
        problem: expect.stringContaining(`WEBSITE_TIME_ZONE (${zone.trim()})`),
      });
    },
  );
});

describe("the dashboard's rows carry the last preflight", () => {
  it("a stored will-fail preflight reaches its row with reasons and advice; the status word stays", async () => {
    const inventory = memoryInventory();
    const seen = { source: "due-list" as const, seenAt: NOW };
    await inventory.upsert([
      {
        certificateName: "checked",
        serviceExpiry: new Date(NOW.getTime() + 40 * DAY_MS),
        ...seen,
      },
      { certificateName: "never", serviceExpiry: new Date(NOW.getTime() + 40 * DAY_MS), ...seen },
    ]);
    await inventory.recordPreflight("checked", {
      at: new Date(NOW.getTime() - 3_600_000),
      status: "will-fail",
      rootDomain: "contoso.com",
      checks: [{ check: "dns-zone", status: "fail", reason: "dns-zone-missing", detail: "404" }],
    });
    const model = await loadDashboard(
      {
        status: { inventory, ledgerRows: async () => ({ items: [], invalid: [] }) },
        history: memoryHistory(),
      },
      { now: NOW, graceMs: 2 * 3_600_000, warnDays: 14, schedule: undefined },
    );
    const byName = new Map(model.rows.map((r) => [r.name, r]));

    expect(byName.get("checked")?.status).toBe("ok");
    expect(byName.get("checked")?.preflight).toMatchObject({
      status: "will-fail",
      reasons: ["dns-zone-missing"],
      blocks: "dns-zone-missing",
      checks: [{ check: "dns-zone", reason: "dns-zone-missing", detail: "404" }],
    });
    expect(byName.get("checked")?.preflight?.checks[0]?.advice).toMatch(/create the DNS zone/);
    expect(byName.get("never")?.preflight).toBeNull();
    expect(model.counts.ok).toBe(2);
  });
});
