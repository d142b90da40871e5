import { describe, expect, it } from "vitest";
import { memoryHistory } from "../../../shared/core/ports/history.js";
import { type Inventory, memoryInventory } from "../../../shared/core/ports/inventory.js";
import type { WindowPart } from "../../../shared/core/status/windowView.js";
import type { VerifySettings } from "../../../shared/core/verification/verifySettings.js";
import { OPEN_CALENDAR, type RenewalCalendar } from "../../../shared/core/windows/calendar.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { dashboardAcross } from "../../../shared/usecases/dashboard.js";
import { accountStatuses } from "../../../shared/usecases/listStatus.js";

/*
 * The renewal calendar on the dashboard and in GET /api/certificates' items: each account's own
 * calendar, from its settings, says each row's window; an account without one says nothing.
 */

/** Monday 7 December 2026, 10:00 UTC. */
const NOW = new Date("2026-12-07T10:00:00.000Z");

const CALENDAR: RenewalCalendar = {
  ...OPEN_CALENDAR,
  windows: [
    {
      label: "CERTSCHED_RENEWAL_WINDOWS[0]",
      start: "0 9 * * 2-4",
      durationMs: 7 * HOUR_MS,
      timeZone: "Europe/Berlin",
    },
  ],
  policies: [
    { label: "CERTSCHED_CERTIFICATE_POLICY[0]", certificates: ["legacy"], policy: "disabled" },
  ],
  jitterMs: 0,
};

async function inventoryOf(daysLeft: Record<string, number>): Promise<Inventory> {
  const inventory = memoryInventory();
  await inventory.upsert(
    Object.entries(daysLeft).map(([certificateName, days], i) => ({
      certificateName,
      id: 100 + i,
      source: "due-list" as const,
      serviceExpiry: new Date(NOW.getTime() + days * DAY_MS),
      seenAt: NOW,
    })),
  );
  return inventory;
}

const portsWith = (renewalCalendar: RenewalCalendar) => ({
  now: () => NOW,
  settings: {
    renewalGraceMs: 2 * HOUR_MS,
    verify: () => ({ warnDays: 14 }) as VerifySettings,
    renewalCalendar,
  },
});

const sourcesOf = async (daysLeft: Record<string, number>) => ({
  status: {
    inventory: await inventoryOf(daysLeft),
    ledgerRows: async () => ({ items: [], invalid: [] }),
  },
  history: memoryHistory(),
});

describe("the dashboard's rows", () => {
  it("waiting and disabled in the account with a calendar; nothing in the other", async () => {
    const page = await dashboardAcross(
      [
        {
          account: "contoso",
          ports: portsWith(CALENDAR),
          sources: await sourcesOf({ www: 15, legacy: 10 }),
        },
        {
          account: "fabrikam",
          ports: portsWith(OPEN_CALENDAR),
          sources: await sourcesOf({ api: 15 }),
        },
      ],
      { schedule: undefined },
      2,
    );

    const rows = page.model.rows as readonly ((typeof page.model.rows)[number] & WindowPart)[];
    const byName = new Map(rows.map((r) => [`${r.account}/${r.name}`, r.window]));
    expect(byName.get("contoso/www")).toMatchObject({
      state: "waiting",
      opensAt: "2026-12-08T08:00:00.000Z",
    });
    expect(byName.get("contoso/legacy")).toMatchObject({ state: "disabled" });
    expect(byName.get("fabrikam/api")).toBeUndefined();
  });
});

describe("GET /api/certificates' items (accountStatuses)", () => {
  it("each item's window and a label that says it", async () => {
    const sources = await sourcesOf({ www: 15, legacy: 10 });
    const requests = { kind: "none" as const, since: async () => 0 };

    const part = await accountStatuses(
      "contoso",
      { ...portsWith(CALENDAR), requests },
      sources.status,
    );

    const www = part.statuses.find((s) => s.certificateName === "www");
    const legacy = part.statuses.find((s) => s.certificateName === "legacy");
    expect(www?.window?.state).toBe("waiting");
    expect(www?.label).toBe(
      "ok · waiting for window (opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC))",
    );
    expect(legacy?.label).toBe("expiring · disabled (policy CERTSCHED_CERTIFICATE_POLICY[0])");
  });
});
