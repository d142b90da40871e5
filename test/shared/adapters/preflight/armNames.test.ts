import { describe, expect, it } from "vitest";
import { hostName, MAX_NAME, names } from "../../../../shared/adapters/preflight/armNames.js";

/* What preflight keeps of ARM's names; through the real SDKs: armLookups.test.ts. */

describe("names", () => {
  it("keeps non-empty strings of a DNS name's length (a trailing dot allowed), at most `max`", () => {
    const longest = `${"a".repeat(MAX_NAME - 4)}.com`;
    expect(longest).toHaveLength(MAX_NAME);
    expect(
      names(["x.com", "", 7, null, { a: 1 }, `${longest}.`, `${longest}a.`, "y.com"], 10),
    ).toEqual(["x.com", `${longest}.`, "y.com"]);
    expect(names(["a", "b", "c"], 2)).toEqual(["a", "b"]);
    expect(names("x.com", 5)).toEqual([]);
    expect(names(undefined, 5)).toEqual([]);
  });
});

describe("hostName", () => {
  it("is lower case without the trailing dot", () => {
    expect(hostName("WWW.Contoso.COM.")).toBe("www.contoso.com");
    expect(hostName("shop.contoso.com")).toBe("shop.contoso.com");
  });
});
