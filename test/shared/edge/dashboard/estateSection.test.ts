import { describe, expect, it } from "vitest";
import type { EstateStatus, KeptEntry, KeptEstate } from "../../../../shared/core/estate/kept.js";
import {
  estateSection,
  MAX_LISTED_ESTATE,
} from "../../../../shared/edge/dashboard/estateSection.js";

/** The dashboard's Estate section: what the timer kept, gaps listed red, every text escaped. */

const NOW = new Date("2026-12-03T08:00:00Z");
const DAY = 86_400_000;

function entry(i: number, extra: Partial<KeptEntry> = {}): KeptEntry {
  return {
    id: `/subscriptions/s/resourcegroups/rg/providers/microsoft.network/applicationgateways/agw/sslcertificates/c${i}`,
    name: `cert-${i}`,
    kind: "application-gateway",
    subscriptionId: "00000000-0000-0000-0000-000000000001",
    expiresAt: new Date(NOW.getTime() + (9 * DAY + 3_600_000)),
    boundTo: `listener portal-${i}.contoso.com`,
    ...extra,
  };
}

function kept(expiring: readonly KeptEntry[], extra: Partial<KeptEstate> = {}): KeptEstate {
  return {
    account: "default",
    at: new Date("2026-12-03T05:40:00Z"),
    expiringDays: 30,
    counts: {
      certificates: 12,
      managed: 7,
      unmanaged: 5,
      "unmanaged-expiring": expiring.length,
      "bound-nowhere": 2,
      "different-certificate": 1,
    },
    problems: 0,
    truncated: 0,
    expiring,
    ...extra,
  };
}

const render = (estates: EstateStatus[], account?: string, accounts = false) =>
  estateSection(estates, NOW, { account, accounts });
const listed = (html: string) => [...html.matchAll(/data-estate="([^"]*)"/g)].map((m) => m[1]);

describe("the dashboard's Estate section", () => {
  it("no section without an estate store", () => {
    expect(render([])).toBe("");
  });

  it("says when nothing was discovered yet, and how to discover now", () => {
    const html = render([{ account: "default" }]);
    expect(html).toContain('id="estate"');
    expect(html).toContain("Not discovered yet");
    expect(html).toContain("<code>certsched estate</code> discovers now");
  });

  it("counts every gap and lists the unmanaged ones expiring, with expiry, distance and binding", () => {
    const html = render([{ account: "default", kept: kept([entry(1)]) }]);
    expect(html).toContain(
      "12 certificates: 7 kept by certsched, 5 not; 1 unmanaged and expiring within 30 days; 2 bound nowhere; 1 bound to a host name certsched renews but a different certificate.",
    );
    expect(html).toContain('<time datetime="2026-12-03T05:40:00.000Z">2026-12-03 05:40 UTC</time>');
    expect(html).toContain(
      'role="alert">1 certificate certsched does not keep expires within 30 days',
    );
    expect(html).toContain("2026-12-12 09:00 UTC</time> (in 9 days)");
    expect(html).toContain("bound to listener portal-1.contoso.com");
    expect(listed(html)).toEqual([entry(1).id]);
  });

  it("an expired one says how long ago; one without a date says so", () => {
    const gone = entry(2, { expiresAt: new Date(NOW.getTime() - DAY - 1) });
    const unknown = entry(3, { expiresAt: undefined });
    const html = render([{ account: "default", kept: kept([gone, unknown]) }]);
    expect(html).toContain("(expired 2 days ago)");
    expect(html).toContain("expiry unknown");
    expect(html).toContain("2 certificates certsched does not keep expire within 30 days");
  });

  it("a quiet estate has counts and no alert", () => {
    const html = render([{ account: "default", kept: kept([]) }]);
    expect(html).toContain("0 unmanaged and expiring");
    expect(html).not.toContain('role="alert"');
  });

  it("parts not read and rows left out are said", () => {
    const html = render([{ account: "default", kept: kept([], { problems: 1, truncated: 40 }) }]);
    expect(html).toContain("1 part of the estate could not be read.");
    expect(html).toContain("40 rows were left out by a bound.");
  });

  it(`lists ${MAX_LISTED_ESTATE} per account and counts the rest`, () => {
    const exactly = Array.from({ length: MAX_LISTED_ESTATE }, (_, i) => entry(i));
    const atLimit = render([{ account: "default", kept: kept(exactly) }]);
    expect(listed(atLimit)).toHaveLength(MAX_LISTED_ESTATE);
    expect(atLimit).not.toContain("more: certsched estate lists them all");
    const over = render([{ account: "default", kept: kept([...exactly, entry(999)]) }]);
    expect(listed(over)).toHaveLength(MAX_LISTED_ESTATE);
    expect(over).toContain("and 1 more: certsched estate lists them all");
  });

  it("escapes names and places from upstream, and redacts a token in them", () => {
    const token = `eyJhbGciOiJSUzI1NiJ9.${"a".repeat(40)}.${"b".repeat(40)}`;
    const hostile = entry(1, {
      name: '<script>alert("x")</script>',
      boundTo: `listener <img src=x onerror=alert(1)> ${token}`,
    });
    const html = render([{ account: "default", kept: kept([hostile]) }]);
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain(token);
  });

  it("a store that failed is its own line; the other accounts still show", () => {
    const html = render(
      [
        { account: "contoso", problem: "the last estate report could not be read: 503" },
        { account: "fabrikam", kept: kept([entry(1)]) },
      ],
      undefined,
      true,
    );
    expect(html).toContain("<h3>account contoso</h3>");
    expect(html).toContain("could not be read: 503");
    expect(html).toContain("<h3>account fabrikam</h3>");
    expect(listed(html)).toEqual([entry(1).id]);
  });

  it("filtered by an account, shows only that account's", () => {
    const estates = [
      { account: "contoso", kept: kept([entry(1)]) },
      { account: "fabrikam", kept: kept([entry(2)]) },
    ];
    expect(listed(render(estates, "fabrikam", true))).toEqual([entry(2).id]);
    expect(render(estates, "nobody", true)).toBe("");
  });
});
