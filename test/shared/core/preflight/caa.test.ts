import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CaaRecord } from "../../../../shared/core/ports/preflightProbes.js";
import {
  CAA_CRITICAL,
  caaNames,
  caaStartName,
  decideCaa,
  issuerDomain,
  isWildcard,
  UNDERSTOOD_CAA_TAGS,
} from "../../../../shared/core/preflight/caa.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const LE = ["letsencrypt.org"];
const rec = (tag: string, value: string, flags = 0): CaaRecord => ({ flags, tag, value });

describe("caaNames: the climb (RFC 8659 3)", () => {
  it.each([
    ["www.contoso.com", ["www.contoso.com", "contoso.com", "com"]],
    ["Contoso.COM.", ["contoso.com", "com"]],
    ["*.shop.contoso.com", ["shop.contoso.com", "contoso.com", "com"]],
    ["*.contoso.com", ["contoso.com", "com"]],
    ["localhost", ["localhost"]],
    ["", []],
    [".", []],
    ["a..contoso.com", []],
  ])("%s → %j (stops before the root)", (domain, names) => {
    expect(caaNames(domain)).toEqual(names);
  });

  it("a wildcard starts at its parent; only `*.` at the front makes one", () => {
    expect(caaStartName("*.contoso.com")).toBe("contoso.com");
    expect(isWildcard("*.contoso.com")).toBe(true);
    expect(isWildcard("www.*.contoso.com")).toBe(false);
    expect(isWildcard("contoso.com")).toBe(false);
  });
});

describe("issuerDomain", () => {
  it.each([
    ["letsencrypt.org", "letsencrypt.org"],
    ["  LetsEncrypt.ORG ; accounturi=https://acme/1", "letsencrypt.org"],
    ["letsencrypt.org;validationmethods=dns-01", "letsencrypt.org"],
    [";", ""],
    ["", ""],
    ["   ", ""],
    [" ; letsencrypt.org", ""],
  ])("%j → %j", (value, issuer) => {
    expect(issuerDomain(value)).toBe(issuer);
  });
});

describe("decideCaa", () => {
  it("no CAA record at or above the domain: allowed", () => {
    expect(decideCaa("contoso.com", [], LE)).toEqual({ allowed: true, why: "no-caa" });
  });

  it.each([
    ["an issue tag naming the CA", [rec("issue", "letsencrypt.org")], true],
    ["an issue tag naming another CA", [rec("issue", "digicert.com")], false],
    ['an empty issuer (";") allows nobody', [rec("issue", ";")], false],
    ["an empty value allows nobody", [rec("issue", "")], false],
    [
      "any one issue tag naming the CA is enough",
      [rec("issue", ";"), rec("issue", "letsencrypt.org")],
      true,
    ],
    [
      "parameters after ; do not matter",
      [rec("issue", "letsencrypt.org; validationmethods=dns-01")],
      true,
    ],
    ["the issuer compares case-insensitively", [rec("ISSUE", " LetsEncrypt.ORG ")], true],
    ["a longer name is not the CA", [rec("issue", "letsencrypt.org.evil.example")], false],
    ["a subdomain is not the CA", [rec("issue", "evil.letsencrypt.org")], false],
    ["only iodef: no tag restricts issuance", [rec("iodef", "mailto:x@contoso.com")], true],
    ["issuewild is ignored for a normal name", [rec("issuewild", "digicert.com")], true],
    [
      "issuewild ; does not stop a normal name",
      [rec("issue", "letsencrypt.org"), rec("issuewild", ";")],
      true,
    ],
    ["a non-critical unknown tag is ignored", [rec("tbs", "x", 0)], true],
  ])("%s", (_, records, allowed) => {
    expect(decideCaa("www.contoso.com", records, LE).allowed).toBe(allowed);
  });

  it("names the records that decided", () => {
    const digicert = rec("issue", "digicert.com");
    const le = rec("issue", "letsencrypt.org");
    expect(decideCaa("contoso.com", [digicert, rec("iodef", "x"), le], LE)).toEqual({
      allowed: true,
      why: "allowed",
      property: "issue",
      record: le,
    });
    expect(decideCaa("contoso.com", [digicert, rec("iodef", "x")], LE)).toEqual({
      allowed: false,
      why: "not-allowed",
      property: "issue",
      records: [digicert],
    });
  });

  describe("a wildcard", () => {
    it.each([
      [
        "issuewild present decides, issue does not",
        [rec("issue", "letsencrypt.org"), rec("issuewild", "digicert.com")],
        false,
        "issuewild",
      ],
      [
        "issuewild naming the CA allows though issue forbids",
        [rec("issue", ";"), rec("issuewild", "letsencrypt.org")],
        true,
        "issuewild",
      ],
      [
        "without issuewild, issue decides (allowed)",
        [rec("issue", "letsencrypt.org")],
        true,
        "issue",
      ],
      [
        "without issuewild, issue decides (forbidden)",
        [rec("issue", "digicert.com")],
        false,
        "issue",
      ],
      [
        "tag case does not hide issuewild",
        [rec("issue", "letsencrypt.org"), rec("IssueWild", ";")],
        false,
        "issuewild",
      ],
    ])("%s", (_, records, allowed, property) => {
      const decision = decideCaa("*.contoso.com", records, LE);
      expect(decision.allowed).toBe(allowed);
      expect("property" in decision && decision.property).toBe(property);
    });

    it("no issue or issuewild tags: allowed", () => {
      expect(decideCaa("*.contoso.com", [rec("iodef", "x")], LE)).toMatchObject({
        allowed: true,
        why: "no-issue-tags",
      });
    });
  });

  describe("the issuer-critical flag", () => {
    it("on a tag certsched does not understand forbids issuance, whatever else allows", () => {
      const tbs = rec("tbs", "x", CAA_CRITICAL);
      expect(decideCaa("contoso.com", [rec("issue", "letsencrypt.org"), tbs], LE)).toEqual({
        allowed: false,
        why: "critical-unknown",
        records: [tbs],
      });
    });

    it.each([
      [128, false],
      [129, false],
      [255, false],
      [127, true],
      [64, true],
      [1, true],
    ])("flags %i on an unknown tag → allowed %s (only bit 128 counts)", (flags, allowed) => {
      expect(
        decideCaa("contoso.com", [rec("tbs", "x", flags), rec("issue", "letsencrypt.org")], LE)
          .allowed,
      ).toBe(allowed);
    });

    it.each(UNDERSTOOD_CAA_TAGS.map((t) => [t]))("on %s (understood) changes nothing", (tag) => {
      const decision = decideCaa(
        "contoso.com",
        [rec(tag, "letsencrypt.org", CAA_CRITICAL), rec("issue", "letsencrypt.org")],
        LE,
      );
      expect(decision.allowed).toBe(true);
    });

    it("on an understood tag in another case changes nothing", () => {
      expect(decideCaa("contoso.com", [rec("IODEF", "x", CAA_CRITICAL)], LE)).toMatchObject({
        allowed: true,
      });
    });
  });

  it("any of several CA identifiers is enough; none configured allows nobody under issue tags", () => {
    const records = [rec("issue", "digicert.com")];
    expect(decideCaa("contoso.com", records, ["letsencrypt.org", "DigiCert.com"]).allowed).toBe(
      true,
    );
    expect(decideCaa("contoso.com", records, []).allowed).toBe(false);
    expect(decideCaa("contoso.com", [rec("issue", ";")], [""]).allowed).toBe(false);
  });
});

describe("decideCaa: properties", () => {
  const tags = fc.constantFrom(...UNDERSTOOD_CAA_TAGS, "tbs", "policy", "x1");
  const values = fc.constantFrom(
    "letsencrypt.org",
    "digicert.com",
    ";",
    "",
    " LetsEncrypt.org; a=b",
  );
  const record = fc.record({
    flags: fc.oneof(fc.constantFrom(0, 127, 128, 255), fc.integer({ min: 0, max: 255 })),
    tag: tags,
    value: values,
  });
  const domain = fc.constantFrom("contoso.com", "*.contoso.com", "www.shop.contoso.com");
  const recase = (text: string, mask: readonly boolean[]) =>
    [...text]
      .map((c, i) => (mask[i % Math.max(1, mask.length)] ? c.toUpperCase() : c.toLowerCase()))
      .join("");

  it("the decision never depends on the case of a tag", () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 8 }),
        domain,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 9 }),
        (records, name, mask) => {
          const recased = records.map((r) => ({ ...r, tag: recase(r.tag, mask) }));
          const a = decideCaa(name, records, LE);
          const b = decideCaa(name, recased, LE);
          expect(b.allowed).toBe(a.allowed);
          expect(b.why).toBe(a.why);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it("a record without the critical flag on a tag certsched does not read never changes the decision", () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 8 }),
        domain,
        fc.integer({ min: 0, max: 127 }),
        (records, name, flags) => {
          const a = decideCaa(name, records, LE);
          const b = decideCaa(name, [...records, rec("tbs", "letsencrypt.org", flags)], LE);
          expect(b.allowed).toBe(a.allowed);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it("allowed exactly when no critical unknown tag and (no deciding tag, or one names the CA)", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), domain, (records, name) => {
        const lower = records.map((r) => ({ ...r, tag: r.tag.toLowerCase() }));
        const criticalUnknown = lower.some(
          (r) => r.flags >= 128 && !UNDERSTOOD_CAA_TAGS.includes(r.tag),
        );
        const wild = lower.filter((r) => r.tag === "issuewild");
        const deciding =
          name.startsWith("*.") && wild.length > 0 ? wild : lower.filter((r) => r.tag === "issue");
        const names = deciding.some(
          (r) => r.value.split(";")[0]?.trim().toLowerCase() === "letsencrypt.org",
        );
        const expected = !criticalUnknown && (deciding.length === 0 || names);
        expect(decideCaa(name, records, LE).allowed).toBe(expected);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
