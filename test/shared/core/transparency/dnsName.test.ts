import { describe, expect, it } from "vitest";
import { dnsName, isAtOrUnder, namesMatch } from "../../../../shared/core/transparency/dnsName.js";

/** DNS names as the Certificate Transparency watch asks about and compares them. */

describe("dnsName", () => {
  it.each([
    ["Example.ORG.", "example.org"],
    ["  www.example.org ", "www.example.org"],
    ["münchen.example", "xn--mnchen-3ya.example"],
    ["_acme.example.org", "_acme.example.org"],
  ])("%j is asked as %j", (text, name) => {
    expect(dnsName(text)).toEqual({ name });
  });

  it.each([
    ["192.0.2.1", "is an IP address"],
    ["2001:db8::1", "is an IP address"],
    ["[2001:db8::1]", "is an IP address"],
    ["com", "is a single label"],
    ["localhost.", "is a single label"],
    ["", "is empty"],
    [" . ", "is empty"],
    ["*.example.org", "is not a DNS name"],
    ["a..example.org", "is not a DNS name"],
    ["exa mple.org", "is not a DNS name"],
    [`${"a".repeat(64)}.example.org`, "is not a DNS name"],
    [`${"a.".repeat(127)}org`, "longer than 253 characters"],
  ])("%j is refused: %s", (text, problem) => {
    const parsed = dnsName(text);
    expect("problem" in parsed && parsed.problem).toContain(problem);
  });
});

describe("isAtOrUnder", () => {
  it.each([
    ["example.org", "example.org", true],
    ["a.b.example.org", "example.org", true],
    ["badexample.org", "example.org", false],
    ["example.org", "www.example.org", false],
  ])("%s at or under %s: %s", (name, parent, expected) => {
    expect(isAtOrUnder(name, parent)).toBe(expected);
  });
});

describe("namesMatch: exact, or a wildcard covering one label, either way", () => {
  it.each([
    ["www.example.org", "WWW.example.org", true],
    ["*.example.org", "www.example.org", true],
    ["www.example.org", "*.example.org", true],
    ["*.example.org", "*.example.org", true],
    ["*.example.org", "a.b.example.org", false],
    ["*.example.org", "example.org", false],
    ["*.www.example.org", "*.example.org", false],
    ["www.example.org", "api.example.org", false],
  ])("%s and %s: %s", (a, b, expected) => {
    expect(namesMatch(a, b)).toBe(expected);
  });
});
