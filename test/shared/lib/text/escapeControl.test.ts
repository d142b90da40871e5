import { describe, expect, it } from "vitest";
import { escapeControl } from "../../../../shared/lib/text/escapeControl.js";

describe("escapeControl", () => {
  it.each([
    ["\u001b[31m", "\\u{1b}[31m"],
    ["a\nb", "a\\u{0a}b"],
    ["\u0085", "\\u{85}"],
    ["\u202e", "\\u{202e}"],
    ["\u2067", "\\u{2067}"],
    // Bidirectional marks reorder what a reader sees as overrides do.
    ["www\u200econtoso", "www\\u{200e}contoso"],
    ["\u200f", "\\u{200f}"],
    ["\u061c", "\\u{61c}"],
  ])("makes %j visible", (text, shown) => {
    expect(escapeControl(text)).toBe(shown);
  });

  it("leaves printable text, backslashes and non-Latin letters alone", () => {
    const text = "zertifikat-müller \\ 証明書 שלום";
    expect(escapeControl(text)).toBe(text);
  });

  it("keeps newlines when asked, and only them", () => {
    expect(escapeControl("a\nb\rc", { keepNewlines: true })).toBe("a\nb\\u{0d}c");
  });
});
