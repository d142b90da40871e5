import { describe, expect, it } from "vitest";
import { memoryHistory } from "../../../shared/core/ports/history.js";
import { memoryInventory } from "../../../shared/core/ports/inventory.js";
import type { VerifySettings } from "../../../shared/core/verification/verifySettings.js";
import { dashboardResponse } from "../../../shared/edge/dashboard/dashboardPage.js";
import { HOUR_MS } from "../../../shared/lib/time.js";
import { dashboard, dashboardAcross } from "../../../shared/usecases/dashboard.js";
import { everyState, failingStore, storeWith } from "../../support/seenIssuances.js";

const NOW = new Date("2026-06-01T12:00:00.000Z");
const ports = {
  now: () => NOW,
  settings: { renewalGraceMs: 2 * HOUR_MS, verify: () => ({ warnDays: 14 }) as VerifySettings },
};
const sources = () => ({
  status: { inventory: memoryInventory(), ledgerRows: async () => ({ items: [], invalid: [] }) },
  history: memoryHistory(),
});

/** The ids the page lists in its Certificate Transparency section, with their state. */
function listed(html: string): string[] {
  return [...html.matchAll(/<li class="ct-(\w+)" data-issuance="([^"]+)"/g)].map(
    (m) => `${m[2]} ${m[1]}`,
  );
}

describe("the dashboard's Certificate Transparency section", () => {
  it("reads the account's issuances from the store: unexpected (red) and pending only", async () => {
    const transparency = await storeWith(everyState("contoso"));
    const page = await dashboard(
      { ...ports, transparency },
      sources(),
      { schedule: undefined },
      "contoso",
    );
    const html = String(dashboardResponse(page, {}).body);
    expect(listed(html)).toEqual(["u1 unexpected", "p1 pending"]);
    expect(html).toContain("1 unexpected certificate issuance (not acknowledged)");
    expect(html).toContain('<span class="badge ct-unexpected">unexpected</span>');
  });

  it("no section when nothing needs showing: acknowledged and expected ones, or no store", async () => {
    const [, acknowledged, , expected] = everyState();
    const transparency = await storeWith([acknowledged, expected].flatMap((s) => (s ? [s] : [])));
    const page = await dashboard({ ...ports, transparency }, sources(), { schedule: undefined });
    expect(String(dashboardResponse(page, {}).body)).not.toContain("Certificate Transparency");
    const none = await dashboard(ports, sources(), { schedule: undefined });
    expect(none.issuances).toEqual([]);
  });

  it("several accounts: each issuance names its account; a failing store is a line, the rest shows", async () => {
    const transparency = await storeWith(everyState("contoso"));
    const page = await dashboardAcross(
      [
        { account: "contoso", ports: { ...ports, transparency }, sources: sources() },
        {
          account: "fabrikam",
          ports: { ...ports, transparency: failingStore("table down") },
          sources: sources(),
        },
      ],
      { schedule: undefined },
      2,
    );
    const html = String(dashboardResponse(page, {}).body);
    expect(listed(html)).toEqual(["u1 unexpected", "p1 pending"]);
    expect(html).toContain("account contoso");
    expect(html).toContain(
      "account fabrikam: Certificate Transparency issuances could not be read: table down",
    );
    // Filtered by an account, only its issuances.
    expect(listed(String(dashboardResponse(page, { account: "fabrikam" }).body))).toEqual([]);
  });
});
