import { describe, expect, it } from "vitest";
import { mergeAccountModels } from "../../../../shared/core/dashboard/accountsModel.js";
import type {
  DashboardModel,
  DashboardRow,
} from "../../../../shared/core/dashboard/dashboardModel.js";
import { emptyCounts } from "../../../../shared/core/status/accountSummary.js";
import type { StatusWord } from "../../../../shared/core/status/certificateStatus.js";

const NOW = "2026-11-23T09:30:00.000Z";

const row = (name: string, status: StatusWord, daysLeft: number | null): DashboardRow => ({
  name,
  domain: null,
  target: null,
  status,
  critical: false,
  why: status,
  serviceExpiry: null,
  servedExpiry: null,
  serviceDaysLeft: daysLeft,
  servedDaysLeft: null,
  daysLeft,
  lastRenewal: null,
  lastVerification: null,
  preflight: null,
  history: { path: `certificates/${name}` },
});

function model(rows: DashboardRow[], extra: Partial<DashboardModel> = {}): DashboardModel {
  const counts = emptyCounts();
  for (const r of rows) counts[r.status] += 1;
  return {
    generatedAt: NOW,
    rows,
    counts,
    lastRun: undefined,
    nextRun: { kind: "unset" },
    requestsLastWeek: 4,
    problems: [],
    ...extra,
  };
}

const run = (finishedAt: string, failed: boolean) => ({
  startedAt: finishedAt,
  finishedAt,
  trigger: "timer",
  dryRun: false,
  failed,
  counts: {},
  problems: [],
});

describe("mergeAccountModels", () => {
  it("keeps every account's rows (the same name in both), sorted by days left, with the account", () => {
    const merged = mergeAccountModels(
      [
        { account: "contoso", model: model([row("www", "failed", 5), row("api", "ok", 50)]) },
        {
          account: "fabrikam",
          model: model([row("www", "stuck", 5), row("old", "expired", -2)], {
            requestsLastWeek: 6,
          }),
        },
      ],
      NOW,
      { kind: "unset" },
    );
    expect(merged.rows.map((r) => [r.account, r.name])).toEqual([
      ["fabrikam", "old"],
      ["fabrikam", "www"],
      ["contoso", "www"],
      ["contoso", "api"],
    ]);
    expect(merged.counts).toMatchObject({ failed: 1, stuck: 1, expired: 1, ok: 1 });
    expect(merged.requestsLastWeek).toBe(10);
    expect(merged.accounts).toEqual([
      expect.objectContaining({
        name: "contoso",
        certificates: 2,
        failed: 1,
        stuck: 0,
        notLanded: 0,
        nextExpiryDays: 5,
        requests7d: 4,
      }),
      expect.objectContaining({
        name: "fabrikam",
        certificates: 2,
        failed: 0,
        stuck: 1,
        nextExpiryDays: -2,
        requests7d: 6,
      }),
    ]);
  });

  it("shows the latest run of any account with its account, and names each problem's account", () => {
    const merged = mergeAccountModels(
      [
        {
          account: "a",
          model: model([], { lastRun: run("2026-11-23T08:00:00.000Z", false), problems: ["x"] }),
        },
        {
          account: "b",
          model: model([], {
            lastRun: run("2026-11-23T09:00:00.000Z", true),
            requestsLastWeek: undefined,
          }),
          unreadable: "storage down",
        },
      ],
      NOW,
      { kind: "unset" },
    );
    expect(merged.lastRun).toMatchObject({ account: "b", failed: true });
    expect(merged.problems).toEqual(["account a: x"]);
    // One account's count unknown: the sum would mislead, so the total is unknown too.
    expect(merged.requestsLastWeek).toBeUndefined();
    expect(merged.accounts?.[1]).toMatchObject({ name: "b", problem: "storage down" });
  });
});
