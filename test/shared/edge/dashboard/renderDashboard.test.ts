import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
  DashboardModel,
  DashboardRow,
} from "../../../../shared/core/dashboard/dashboardModel.js";
import { STATUS_WORDS } from "../../../../shared/core/status/certificateStatus.js";
import {
  MAX_ROWS,
  renderDashboard,
  span,
} from "../../../../shared/edge/dashboard/renderDashboard.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const NOW = "2026-11-23T09:30:00.000Z";

function model(text: (i: number) => string): DashboardModel {
  const row = (i: number): DashboardRow => ({
    name: text(i),
    domain: text(i + 1),
    target: text(i + 2),
    status: STATUS_WORDS[i % STATUS_WORDS.length] ?? "ok",
    critical: i % 2 === 0,
    why: text(i + 3),
    serviceExpiry: "2026-12-01T00:00:00.000Z",
    servedExpiry: "2026-12-01T00:00:00.000Z",
    serviceDaysLeft: 7,
    servedDaysLeft: 7,
    daysLeft: i * 7 - 10,
    lastRenewal: { at: NOW, outcome: text(i + 4) },
    lastVerification: { at: NOW, status: text(i + 5), detail: text(i + 6) },
    // A will-fail preflight whose stored texts are as hostile as the rest.
    preflight: {
      status: "will-fail",
      at: NOW,
      rootDomain: text(i + 12),
      reasons: ["caa-forbids"],
      checks: [
        {
          check: "caa",
          status: "fail",
          reason: "caa-forbids",
          detail: text(i + 13),
          advice: "add a CAA record",
        },
        { check: "access", status: "unknown", reason: null, detail: text(i + 14), advice: null },
      ],
      blocks: "caa-forbids",
    },
    history: { path: `certificates/${encodeURIComponent(text(i))}` },
  });
  return {
    generatedAt: NOW,
    rows: [row(0), row(1), row(2)],
    counts: Object.fromEntries(STATUS_WORDS.map((w) => [w, 1])) as DashboardModel["counts"],
    lastRun: {
      startedAt: NOW,
      finishedAt: NOW,
      trigger: text(7),
      dryRun: false,
      failed: true,
      counts: { [text(8)]: 2 },
      problems: [text(9)],
    },
    nextRun: { kind: "invalid", problem: text(10) },
    requestsLastWeek: 3,
    problems: [text(11)],
  };
}

/** The page's markup with every text left out: the tags and their attributes, in order. */
const tags = (html: string) => html.match(/<[^>]*>/g) ?? [];

describe("renderDashboard", () => {
  it("whatever the stored texts hold, the page's markup is the same as with plain ones", () => {
    const plain = tags(
      renderDashboard(
        model((i) => `plain${i}`),
        { warnDays: 14 },
      ),
    ).map((t) =>
      // Attribute values that carry a text (the history link) differ by design.
      t.replace(/href="certificates\/[^"]*"/, 'href="certificates/…"'),
    );
    fc.assert(
      fc.property(
        // 17: row 2's preflight detail is text(16).
        fc.array(fc.string({ unit: "binary" }), { minLength: 17, maxLength: 17 }),
        (texts) => {
          const html = renderDashboard(
            model((i) => texts[i] ?? ""),
            { warnDays: 14 },
          );
          const found = tags(html).map((t) =>
            t.replace(/href="certificates\/[^"]*"/, 'href="certificates/…"'),
          );
          expect(found).toEqual(plain);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it.each([
    [0, "0 s"],
    [59_999, "60 s"],
    [60_000, "1 min"],
    [3_600_000, "1 h"],
    [3_660_000, "1 h 1 min"],
    [86_400_000, "1 d"],
    [90_000_000, "1 d 1 h"],
    [-90_000_000, "1 d 1 h"],
  ])("span(%i) is %j", (ms, text) => {
    expect(span(ms)).toBe(text);
  });

  it("days left: the bar's band changes at 7 and at the warn days, the words always say the number", () => {
    const page = (daysLeft: number) =>
      renderDashboard(
        {
          ...model((i) => `c${i}`),
          rows: [{ ...model((i) => `c${i}`).rows[0], daysLeft } as DashboardRow],
        },
        { warnDays: 14 },
      );
    expect(page(6)).toMatch(/band-bad"><\/span><\/span><span class="days-text">6 days</);
    expect(page(7)).toMatch(/band-warn"><\/span><\/span><span class="days-text">7 days</);
    expect(page(13)).toMatch(/band-warn"><\/span><\/span><span class="days-text">13 days</);
    expect(page(14)).toMatch(/band-ok"><\/span><\/span><span class="days-text">14 days</);
    expect(page(1)).toContain(">1 day<");
    // Floored days: -1 is "within the last 24 hours", -2 is "a day or more ago".
    expect(page(-1)).toContain(">expired less than a day ago<");
    expect(page(-2)).toContain(">expired 1 day ago<");
    expect(page(-3)).toContain(">expired 2 days ago<");
    expect(page(60)).toContain("fill w100 band-ok");
    expect(page(600)).toContain("fill w100 band-ok");
  });

  it("shows a filter for each status some certificate has (and the current one), no empty ones", () => {
    const base = model((i) => `c${i}`);
    const counts = { ...base.counts, stuck: 0, unknown: 0, ok: 4 };
    const chips = (status?: "stuck") =>
      [
        ...renderDashboard({ ...base, counts }, { warnDays: 14, status }).matchAll(
          /<a class="chip[^"]*" href="([^"]*)"/g,
        ),
      ].map((m) => m[1]);

    expect(chips()).not.toContain("?status=stuck");
    expect(chips()).not.toContain("?status=unknown");
    expect(chips()).toContain("?status=ok");
    expect(chips("stuck")).toContain("?status=stuck");
  });

  it("the last run lists its non-zero counts only", () => {
    const base = model((i) => `c${i}`);
    const lastRun = base.lastRun && { ...base.lastRun, counts: { renewed: 2, failed: 0 } };
    const html = renderDashboard({ ...base, lastRun }, { warnDays: 14 });
    const text = /<dd id="last-run">(.*?)<\/dd>/.exec(html)?.[1] ?? "";

    expect(text).toContain("renewed 2");
    expect(text).not.toContain("failed 0");
  });

  it("lists at most MAX_ROWS rows, fewest days left first, and says so; the counts cover all", () => {
    const base = model((i) => `c${i}`);
    const first = base.rows[0] as DashboardRow;
    const rows = Array.from({ length: MAX_ROWS + 1 }, (_, i) => ({ ...first, name: `n${i}` }));
    const many = { ...base, rows };
    const html = renderDashboard(many, { warnDays: 14 });
    const exact = renderDashboard({ ...many, rows: rows.slice(0, MAX_ROWS) }, { warnDays: 14 });

    expect(html.match(/<tr data-status/g)).toHaveLength(MAX_ROWS);
    expect(html).toContain(
      `${MAX_ROWS + 1} certificates, fewest days left first. Listed: the first ${MAX_ROWS}`,
    );
    expect(html).toContain(`>n${MAX_ROWS - 1}<`);
    expect(html).not.toContain(`>n${MAX_ROWS}<`);
    expect(exact.match(/<tr data-status/g)).toHaveLength(MAX_ROWS);
    expect(exact).not.toContain("Listed: the first");
  });
});
