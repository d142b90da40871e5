import { describe, expect, it } from "vitest";
import {
  describeServed,
  factsOf,
  instantText,
  landedDetail,
  MAX_FACT,
  type ServedFacts,
  sameCertificate,
  shortPrint,
} from "../../../../shared/core/verification/served.js";

const T = new Date("2026-11-26T10:00:00.000Z");

describe("served facts", () => {
  it("shortPrint shows 16 characters whole and cuts the 17th with an ellipsis", () => {
    expect(shortPrint("0123456789ABCDEF")).toBe("0123456789ABCDEF");
    expect(shortPrint("0123456789ABCDEF0")).toBe("0123456789ABCDEF…");
    expect(shortPrint("0A")).toBe("0A");
  });

  it("factsOf: nothing without a fingerprint; the issuer escaped and bounded", () => {
    expect(factsOf(undefined)).toBeUndefined();
    expect(factsOf({ servedNotAfter: T })).toBeUndefined();
    const facts = factsOf({ thumbprint: "ab", issuer: `CN=\u001b[31m${"x".repeat(30_000)}` });
    expect(facts?.thumbprint).toBe("AB");
    expect(facts?.issuer?.length).toBe(MAX_FACT);
    expect(facts?.issuer).not.toContain("\u001b");
    expect(facts).not.toHaveProperty("serial");
  });

  it("factsOf carries the CT hashes whole, and no line for people shows them", () => {
    const pubkeySha256 = "0f".repeat(32);
    const tbsSha256 = "a1".repeat(32);
    const facts = factsOf({ thumbprint: "AB", serial: "04", pubkeySha256, tbsSha256 });
    expect(facts).toEqual({ thumbprint: "AB", serial: "04", pubkeySha256, tbsSha256 });
    const line = landedDetail(facts as ServedFacts, facts as ServedFacts, T);
    expect(line).not.toContain("0f0f");
    expect(line).not.toContain("a1a1");
    expect(factsOf({ thumbprint: "AB" })).not.toHaveProperty("tbsSha256");
  });

  it("the landed detail: fingerprints and serials to 16 characters, whole-second dates", () => {
    const before = {
      thumbprint: "AB12CD34".repeat(8),
      serial: "0A1B2C3D4E5F60718293",
      notAfter: new Date("2026-12-01T00:00:00.000Z"),
    };
    const after = {
      thumbprint: "EF34".repeat(16),
      serial: "04",
      notAfter: new Date("2027-03-01T00:00:00.000Z"),
    };
    expect(landedDetail(before, after, T)).toBe(
      "the served certificate changed from SHA-256 AB12CD34AB12CD34… (serial 0A1B2C3D4E5F6071…, expires 2026-12-01T00:00:00Z) to SHA-256 EF34EF34EF34EF34… (serial 04, expires 2027-03-01T00:00:00Z) at 2026-11-26T10:00:00Z",
    );
    expect(describeServed({ thumbprint: "AB", version: "v2\nx" })).toBe(
      "SHA-256 AB (version v2\\u{0a}x)",
    );
    expect(instantText(new Date("2026-11-26T10:00:00.250Z"))).toBe("2026-11-26T10:00:00.250Z");
  });

  it("sameCertificate compares whole fingerprints, in any case", () => {
    expect(sameCertificate("ab12", "AB12")).toBe(true);
    expect(sameCertificate("AB12", "AB13")).toBe(false);
  });
});
