import { describe, expect, it } from "vitest";
import type { History } from "../../../shared/core/ports/history.js";
import { memoryHistory } from "../../../shared/core/ports/history.js";
import { type Inventory, memoryInventory } from "../../../shared/core/ports/inventory.js";
import type { StatusSources } from "../../../shared/core/status/statusSources.js";
import type { VerifySettings } from "../../../shared/core/verification/verifySettings.js";
import { REDACTED } from "../../../shared/lib/redact/redact.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { dashboard, dashboardAcross, loadDashboard } from "../../../shared/usecases/dashboard.js";

const NOW = new Date("2025-03-01T12:00:00.000Z");
const OPTIONS = { now: NOW, graceMs: 2 * HOUR_MS, warnDays: 14, schedule: undefined };
const SECRET_ERROR = "storage said Bearer abc.def-ghi";

async function inventoryOf(daysLeft: Record<string, number>): Promise<Inventory> {
  const inventory = memoryInventory();
  await inventory.upsert(
    Object.entries(daysLeft).map(([certificateName, days], i) => ({
      certificateName,
      id: 100 + i,
      source: "due-list" as const,
      serviceExpiry: new Date(NOW.getTime() + days * DAY_MS + 3 * HOUR_MS),
      seenAt: NOW,
    })),
  );
  return inventory;
}

const statusOf = (inventory: Inventory): StatusSources => ({
  inventory,
  ledgerRows: async () => ({ items: [], invalid: [] }),
});

const failing = async (): Promise<never> => {
  throw new Error(SECRET_ERROR);
};

describe("loadDashboard", () => {
  it("every certificate, most urgent first, with a count for every status word", async () => {
    const inventory = await inventoryOf({ later: 60, soon: 3, middle: 20 });
    const model = await loadDashboard(
      { status: statusOf(inventory), history: memoryHistory() },
      OPTIONS,
    );
    expect(model.rows.map((r) => r.name)).toEqual(["soon", "middle", "later"]);
    expect(model.generatedAt).toBe(NOW.toISOString());
    expect(Object.keys(model.counts)).toEqual([
      "expired",
      "stuck",
      "failed",
      "not-landed",
      "not-synced",
      "pending",
      "expiring",
      "unverifiable",
      "ok",
      "unknown",
    ]);
    expect(Object.values(model.counts).reduce((a, b) => a + b, 0)).toBe(3);
    expect(model.lastRun).toBeUndefined();
    expect(model.nextRun).toEqual({ kind: "unset" });
    expect(model.requestsLastWeek).toBe(0);
    expect(model.problems).toEqual([]);
  });

  it("counts the service requests of the last seven days", async () => {
    let asked: Date | undefined;
    const history: History = {
      ...memoryHistory(),
      requestsSince: async (since) => {
        asked = since;
        return 42;
      },
    };
    const model = await loadDashboard({ status: statusOf(memoryInventory()), history }, OPTIONS);
    expect(model.requestsLastWeek).toBe(42);
    expect(asked).toEqual(new Date(NOW.getTime() - 7 * DAY_MS));
  });

  it("each source that fails is one redacted problem; the rest of the page still shows", async () => {
    const inventory = await inventoryOf({ web: 30 });
    const brokenHistory: History = { ...memoryHistory(), runs: failing, requestsSince: failing };
    const model = await loadDashboard(
      { status: statusOf(inventory), history: brokenHistory },
      OPTIONS,
    );
    expect(model.rows.map((r) => r.name)).toEqual(["web"]);
    expect(model.requestsLastWeek).toBeUndefined();
    expect(model.problems).toEqual([
      `the last run could not be read: storage said Bearer ${REDACTED}`,
      `the service requests could not be counted: storage said Bearer ${REDACTED}`,
    ]);

    const brokenStatus: StatusSources = {
      inventory: { ...memoryInventory(), list: failing },
      ledgerRows: async () => ({ items: [], invalid: [] }),
    };
    const noRows = await loadDashboard({ status: brokenStatus, history: memoryHistory() }, OPTIONS);
    expect(noRows.rows).toEqual([]);
    expect(noRows.requestsLastWeek).toBe(0);
    expect(noRows.problems).toEqual([
      `certificates could not be read: storage said Bearer ${REDACTED}`,
    ]);
  });

  it("unreadable runs are problems, not the last run", async () => {
    const history: History = {
      ...memoryHistory(),
      runs: async () => ({ items: [], invalid: ["row 7: Bearer abc.def-ghi"] }),
    };
    const model = await loadDashboard({ status: statusOf(memoryInventory()), history }, OPTIONS);
    expect(model.lastRun).toBeUndefined();
    expect(model.problems).toEqual([`unreadable run: row 7: Bearer ${REDACTED}`]);
  });

  it("the next run from the schedule; a time zone it does not convert is said", async () => {
    const sources = { status: statusOf(memoryInventory()), history: memoryHistory() };
    const at = await loadDashboard(sources, { ...OPTIONS, schedule: "0 0 3 * * *" });
    expect(at.nextRun).toEqual({
      kind: "at",
      at: "2025-03-02T03:00:00.000Z",
      schedule: "0 0 3 * * *",
    });
    const zoned = await loadDashboard(sources, {
      ...OPTIONS,
      schedule: "0 0 3 * * *",
      timeZone: "Tokyo Standard Time",
    });
    expect(zoned.nextRun.kind).toBe("invalid");
  });
});

describe("dashboard", () => {
  it("uses the runtime's clock, grace and warn days, and the host's schedule", async () => {
    const inventory = await inventoryOf({ soon: 10 });
    const ports = {
      now: () => NOW,
      settings: {
        renewalGraceMs: 2 * HOUR_MS,
        verify: () => ({ warnDays: 12 }) as VerifySettings,
      },
    };
    const sources = { status: statusOf(inventory), history: memoryHistory() };
    const page = await dashboard(ports, sources, {
      schedule: "0 30 4 * * *",
      timeZone: "UTC",
    });
    expect(page.warnDays).toBe(12);
    expect(page.model.generatedAt).toBe(NOW.toISOString());
    expect(page.model.nextRun).toEqual({
      kind: "at",
      at: "2025-03-02T04:30:00.000Z",
      schedule: "0 30 4 * * *",
    });
    expect(page.model.rows[0]?.status).toBe("expiring");
    const wider = await dashboard(
      {
        ...ports,
        settings: { ...ports.settings, verify: () => ({ warnDays: 9 }) as VerifySettings },
      },
      sources,
      { schedule: undefined },
    );
    expect(wider.model.rows[0]?.status).toBe("ok");
    expect(wider.model.nextRun).toEqual({ kind: "unset" });
  });
});

describe("dashboardAcross", () => {
  const ports = {
    now: () => NOW,
    settings: {
      renewalGraceMs: 2 * HOUR_MS,
      verify: () => ({ warnDays: 14 }) as VerifySettings,
    },
  };

  it("one account alone gives the page it always did: no account anywhere", async () => {
    const sources = { status: statusOf(await inventoryOf({ www: 3 })), history: memoryHistory() };
    const page = await dashboardAcross(
      [{ account: "default", ports, sources }],
      {
        schedule: undefined,
      },
      4,
    );
    expect(page.model.accounts).toBeUndefined();
    expect(page.model.rows.map((r) => r.account)).toEqual([undefined]);
  });

  it("merges the accounts' own sources: the same name in both, one unreadable account named", async () => {
    const page = await dashboardAcross(
      [
        {
          account: "contoso",
          ports,
          sources: { status: statusOf(await inventoryOf({ www: 3 })), history: memoryHistory() },
        },
        {
          account: "fabrikam",
          ports,
          sources: { status: statusOf(await inventoryOf({ www: 30 })), history: memoryHistory() },
        },
        {
          account: "northwind",
          ports,
          sources: {
            status: { inventory: memoryInventory(), ledgerRows: failing },
            history: memoryHistory(),
          },
        },
      ],
      { schedule: undefined },
      2,
    );
    expect(page.model.rows.map((r) => [r.account, r.name, r.daysLeft])).toEqual([
      ["contoso", "www", 3],
      ["fabrikam", "www", 30],
    ]);
    expect(page.model.accounts?.map((a) => [a.name, a.certificates, a.nextExpiryDays])).toEqual([
      ["contoso", 1, 3],
      ["fabrikam", 1, 30],
      ["northwind", 0, null],
    ]);
    expect(page.model.accounts?.[2]?.problem).toBe(`storage said Bearer ${REDACTED}`);
    expect(page.model.problems).toEqual([
      `account northwind: certificates could not be read: storage said Bearer ${REDACTED}`,
    ]);
  });
});
