import { describe, expect, it } from "vitest";
import { byName } from "../../../../shared/core/status/statusSources.js";

describe("byName", () => {
  it("orders by UTF-16 code units, not by locale: upper case before lower", () => {
    expect(["b", "a", "B", "é", "A", "ab", "a-1"].sort(byName)).toEqual([
      "A",
      "B",
      "a",
      "a-1",
      "ab",
      "b",
      "é",
    ]);
  });

  it("is -1, 0 or 1", () => {
    expect(byName("a", "b")).toBe(-1);
    expect(byName("b", "a")).toBe(1);
    expect(byName("same", "same")).toBe(0);
  });

  it("a supplementary character sorts by its surrogates (below U+E000)", () => {
    expect(["\uE000", "\u{1F600}"].sort(byName)).toEqual(["\u{1F600}", "\uE000"]);
  });
});
