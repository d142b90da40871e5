import { describe, expect, it } from "vitest";
import {
  detailList,
  detailValue,
  MAX_DETAIL_VALUE,
  MAX_DETAIL_VALUES,
} from "../../../../shared/usecases/preflightChecks/dnsDetail.js";

describe("detailValue", () => {
  it("escapes control characters", () => {
    expect(detailValue("a\u001bb\nc")).toBe("a\\u{1b}b\\u{0a}c");
  });

  it.each([
    [MAX_DETAIL_VALUE, false],
    [MAX_DETAIL_VALUE + 1, true],
  ])("a value of %i characters is cut: %s", (length, cut) => {
    const value = "x".repeat(length);
    const shown = detailValue(value);
    expect(shown.length).toBe(MAX_DETAIL_VALUE);
    expect(shown === value).toBe(!cut);
    if (cut) expect(shown.endsWith("…")).toBe(true);
  });
});

describe("detailList", () => {
  it("names up to MAX_DETAIL_VALUES values, then counts the rest", () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    expect(detailList(values(MAX_DETAIL_VALUES))).toBe("v0, v1, v2, v3, v4");
    expect(detailList(values(MAX_DETAIL_VALUES + 1))).toBe("v0, v1, v2, v3, v4 and 1 more");
    expect(detailList([])).toBe("");
  });
});
