import { describe, expect, it } from "vitest";
import type { EstateCertificate } from "../../../../shared/core/estate/estate.js";
import { estateView } from "../../../../shared/core/estate/estateView.js";
import { estateReport } from "../../../../shared/core/estate/report.js";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";

const NOW = new Date("2026-12-02T12:00:00Z");
const SUB = "00000000-0000-0000-0000-000000000001";

const cert = (name: string, fields: Partial<EstateCertificate> = {}): EstateCertificate => ({
  id: `https://kv-team.vault.azure.net/certificates/${name}`,
  kind: "key-vault",
  name,
  subscriptionId: SUB,
  expiresAt: new Date("2026-12-11T12:00:00Z"),
  hostNames: [`${name}.contoso.com`],
  moreHostNames: 0,
  boundTo: [],
  problems: [],
  ...fields,
});

describe("the estate's view", () => {
  it("dates as ISO text; an unmanaged certificate carries the request certsched would send, a managed one none", () => {
    const record = {
      certificateName: "kept",
      source: "due-list",
      firstSeen: NOW,
      lastSeen: NOW,
    } as InventoryRecord;
    const view = estateView(
      estateReport({
        account: "contoso",
        discovered: [cert("portal"), cert("kept")],
        records: [record],
        now: NOW,
        expiringDays: 30,
        problems: [],
        truncated: 0,
      }),
    );
    expect(view.at).toBe("2026-12-02T12:00:00.000Z");
    const [portal, kept] = view.entries;
    expect(portal).toMatchObject({
      name: "portal",
      expiresAt: "2026-12-11T12:00:00.000Z",
      gaps: ["unmanaged-expiring", "bound-nowhere"],
      proposal: {
        request: {
          certificateName: "portal-contoso-com",
          rootDomain: "portal.contoso.com",
          keyVaultName: "kv-team",
        },
        missing: expect.arrayContaining(["email", "password", "dnsZoneResourceGroup"]),
      },
    });
    expect(kept).toMatchObject({ name: "kept", managedBy: "kept", match: "name", gaps: [] });
    expect(kept?.proposal).toBeUndefined();
  });
});
