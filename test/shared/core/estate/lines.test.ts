import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EstateCertificate } from "../../../../shared/core/estate/estate.js";
import {
  estateAlertLine,
  estateEntryLine,
  estateSummaryLine,
  MAX_ESTATE_LINE,
} from "../../../../shared/core/estate/lines.js";
import { type EstateEntry, estateReport } from "../../../../shared/core/estate/report.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const NOW = new Date("2026-12-02T12:00:00Z");
const DAY = 86_400_000;
const SUB = "00000000-0000-0000-0000-000000000001";
const GW = `/subscriptions/${SUB}/resourcegroups/net/providers/microsoft.network/applicationgateways/gw`;

function cert(fields: Partial<EstateCertificate> = {}): EstateCertificate {
  return {
    id: `${GW}/sslcertificates/legacy`,
    kind: "application-gateway",
    name: "legacy",
    subscriptionId: SUB,
    resourceGroup: "net",
    expiresAt: new Date(NOW.getTime() + 9 * DAY),
    hostNames: ["shop.contoso.com"],
    moreHostNames: 0,
    boundTo: [
      { kind: "listener", resourceId: `${GW}/httplisteners/l1`, hostName: "shop.contoso.com" },
    ],
    problems: [],
    ...fields,
  };
}

const entry = (fields: Partial<EstateCertificate> = {}): EstateEntry => ({
  certificate: cert(fields),
  gaps: ["unmanaged-expiring"],
});

describe("estateAlertLine", () => {
  it("names the certificate, its account, expiry, bindings and place", () => {
    expect(estateAlertLine("prod", entry(), NOW)).toBe(
      `certsched estate alert: unmanaged certificate "legacy" (application-gateway) of account "prod" expires 2026-12-11T12:00:00.000Z (9 days): bound to listener shop.contoso.com; in ${SUB}/net`,
    );
  });

  it("counts whole days left, and days since for an expired one", () => {
    const at = (ms: number) =>
      estateAlertLine("a", entry({ expiresAt: new Date(NOW.getTime() + ms) }), NOW);
    expect(at(9 * DAY)).toContain("(9 days)");
    expect(at(9 * DAY - 1)).toContain("(8 days)");
    expect(at(DAY)).toContain("(1 day)");
    expect(at(0)).toContain("expires 2026-12-02T12:00:00.000Z (0 days)");
    expect(at(-1)).toContain("expired 2026-12-02T11:59:59.999Z (1 day ago)");
    expect(at(-DAY - 1)).toContain("(2 days ago)");
  });

  it("says nothing is bound, names three bindings and counts the rest", () => {
    expect(estateAlertLine("a", entry({ boundTo: [] }), NOW)).toContain('bound to "nothing"; ');
    const four = [1, 2, 3, 4].map((i) => ({ kind: "site" as const, resourceId: `/s/${i}` }));
    expect(estateAlertLine("a", entry({ boundTo: four }), NOW)).toContain(
      "bound to site /s/1, site /s/2, site /s/3 and 1 more;",
    );
    const three = four.slice(0, 3);
    expect(estateAlertLine("a", entry({ boundTo: three }), NOW)).toContain("site /s/3; in");
  });

  it("escapes control characters and quotes, and leaves out a missing resource group", () => {
    const line = estateAlertLine(
      'a"b',
      entry({ name: 'x\ncertsched estate summary: "<b>', resourceGroup: undefined }),
      NOW,
    );
    expect(line).toContain('certificate "x\\u{0a}certsched estate summary: \\"<b>"');
    expect(line).toContain('of account "a\\"b"');
    expect(line).not.toContain("\n");
    expect(line.endsWith(`in ${SUB}`)).toBe(true);
  });

  it("is one bounded line whatever the upstream wrote", () => {
    const text = fc.string({ unit: "binary", maxLength: 2000 });
    fc.assert(
      fc.property(text, text, text, (name, account, host) => {
        const bound = Array.from({ length: 5 }, () => ({
          kind: "listener" as const,
          resourceId: host,
          hostName: host,
        }));
        for (const line of [
          estateAlertLine(account, entry({ name, boundTo: bound, resourceGroup: host }), NOW),
          estateEntryLine(account, entry({ name, boundTo: bound }), NOW),
        ]) {
          expect(line.length).toBeLessThanOrEqual(MAX_ESTATE_LINE);
          // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach a log line.
          expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
        }
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});

describe("estateEntryLine", () => {
  it("says who keeps a managed certificate and how it was matched", () => {
    const line = estateEntryLine(
      "prod",
      { certificate: cert(), managedBy: "shop", match: "thumbprint", gaps: [] },
      NOW,
    );
    expect(line).toBe(
      `certsched estate certificate: "legacy" (application-gateway) of account "prod": managed as "shop" (by thumbprint); expires 2026-12-11T12:00:00.000Z (9 days); bound to listener shop.contoso.com; in ${SUB}/net`,
    );
  });

  it("names an unmanaged certificate's gaps", () => {
    const gaps = {
      certificate: cert({ expiresAt: undefined }),
      gaps: ["different-certificate", "bound-nowhere"],
    } as const;
    expect(estateEntryLine("p", gaps, NOW)).toContain(
      ": unmanaged (a host name certsched renews, bound nowhere); expiry unknown;",
    );
    expect(estateEntryLine("p", { certificate: cert(), gaps: [] }, NOW)).toContain(
      ": unmanaged; expires",
    );
  });
});

describe("estateSummaryLine", () => {
  it("counts the report", () => {
    const report = estateReport({
      account: "prod",
      discovered: [cert(), cert({ id: "b", name: "b", boundTo: [], expiresAt: undefined })],
      records: [],
      now: NOW,
      expiringDays: 30,
      problems: [{ where: "vault v", detail: "403" }],
      truncated: 2,
    });
    expect(estateSummaryLine(report)).toBe(
      'certsched estate summary: account "prod": 2 certificates, 0 managed, 1 unmanaged and expiring within 30 days, 0 on a host name certsched renews but not its certificate, 1 unmanaged and bound nowhere, 1 part not read, 2 left out at a bound',
    );
  });
});
