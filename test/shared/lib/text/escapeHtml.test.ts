import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeControl } from "../../../../shared/lib/text/escapeControl.js";
import { escapeHtml } from "../../../../shared/lib/text/escapeHtml.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/** What a browser reads back from the five references escapeHtml writes. */
function readBack(html: string): string {
  return html.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name] ?? "",
  );
}

describe("escapeHtml", () => {
  it.each([
    ['"><img src=x onerror=alert(1)>', "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"],
    ["<script>alert('x')</script>", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"],
    ["a &amp; b", "a &amp;amp; b"],
    ["it's", "it&#39;s"],
    ["line\nbreak", "line\\u{0a}break"],
    ["right\u202eto-left", "right\\u{202e}to-left"],
    // Bidi marks and zero-width characters: invisible, so a look-alike name is told apart.
    ["www\u200fcontoso", "www\\u{200f}contoso"],
    ["www\u200econtoso\u061c", "www\\u{200e}contoso\\u{61c}"],
    ["www-contoso-com\u200b", "www-contoso-com\\u{200b}"],
    ["\ufeffbom\u2060", "\\u{feff}bom\\u{2060}"],
    ["plain-name.contoso.com", "plain-name.contoso.com"],
    ["", ""],
  ])("%j -> %j", (input, expected) => {
    expect(escapeHtml(input)).toBe(expected);
  });

  it("leaves no character that can open a tag, end an attribute or start a foreign entity", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const html = escapeHtml(text);
        expect(html).not.toMatch(/[<>"']/);
        // Every & starts one of our references.
        expect(html.replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toContain("&");
        // No invisible character is left to reorder or hide what a reader sees.
        expect(html).not.toMatch(/\p{Cc}|\p{Cf}|[\u2028\u2029]/u);
        // A reader sees the text itself, control and format characters made visible.
        if (!/\p{Cf}/u.test(text)) expect(readBack(html)).toBe(escapeControl(text));
      }),
      { numRuns: propertyRuns(2_000) },
    );
  });
});
