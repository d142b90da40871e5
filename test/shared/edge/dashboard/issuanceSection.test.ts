import { describe, expect, it } from "vitest";
import { issuanceStatusOf } from "../../../../shared/core/status/issuanceStatus.js";
import {
  issuanceSection,
  MAX_LISTED_ISSUANCES,
} from "../../../../shared/edge/dashboard/issuanceSection.js";
import { everyState, seenIssuance } from "../../../support/seenIssuances.js";

const NOW = new Date("2026-06-01T12:00:00.000Z");
const one = (items = everyState()) => [issuanceStatusOf("contoso", { items, invalid: [] })];

describe("issuanceSection", () => {
  it("lists names, issuer, validity, why and the crt.sh link, without the page's key", () => {
    const html = issuanceSection(one(), NOW, { accounts: false });
    expect(html).toContain('<h2 id="ct-title">Certificate Transparency</h2>');
    expect(html).toContain("<code>u1.contoso.com</code>");
    expect(html).toContain(
      "by C=US, O=Let&#39;s Encrypt, CN=R11, valid 2026-05-30 09:00 UTC to 2026-08-28 09:00 UTC",
    );
    expect(html).toContain("nothing certsched did explains it");
    expect(html).toContain(
      `<a href="https://crt.sh/?sha256=${"a".repeat(64)}" rel="noreferrer noopener"`,
    );
    // The page's script copies the function key onto data-keep-key links: never onto crt.sh.
    expect(html).not.toContain("data-keep-key");
    expect(html).not.toContain("a1.contoso.com");
    expect(html).not.toContain("e1.contoso.com");
    expect(html).not.toContain("account contoso");
  });

  it("escapes what a CA logged: no tag, attribute, entity, control or bidi character", () => {
    const hostile = seenIssuance(
      { watched: '"><script>alert(1)</script>' },
      {
        id: "x1",
        dnsNames: ["<img src=x onerror=alert(1)>.contoso.com", "a&amp;b\u202e.contoso.com"],
        issuer: "CN=<b>Evil</b>' onmouseover='x",
      },
    );
    const html = issuanceSection(one([hostile]), NOW, { accounts: false });
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b>Evil");
    expect(html).not.toContain("' onmouseover='");
    expect(html).not.toContain("\u202e");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;.contoso.com");
    expect(html).toContain("a&amp;amp;b\\u{202e}.contoso.com");
  });

  it("says revoked and expired", () => {
    const revoked = seenIssuance({}, { revoked: true, notAfter: new Date("2026-05-31T00:00:00Z") });
    expect(issuanceSection(one([revoked]), NOW, { accounts: false })).toContain(
      '<span class="badge ct-condition">revoked, expired</span>',
    );
  });

  it(`lists at most ${MAX_LISTED_ISSUANCES} per state, then how many more`, () => {
    const items = Array.from({ length: MAX_LISTED_ISSUANCES + 2 }, (_, i) =>
      seenIssuance({}, { id: `u${i}` }),
    );
    const html = issuanceSection(one(items), NOW, { accounts: false });
    expect([...html.matchAll(/data-issuance=/g)]).toHaveLength(MAX_LISTED_ISSUANCES);
    expect(html).toContain("and 2 more: certsched ct lists them all");
  });

  it("nothing when there is nothing to show", () => {
    expect(issuanceSection([], NOW, { accounts: true })).toBe("");
    const [, acknowledged] = everyState();
    expect(issuanceSection(one(acknowledged ? [acknowledged] : []), NOW, { accounts: false })).toBe(
      "",
    );
  });
});
