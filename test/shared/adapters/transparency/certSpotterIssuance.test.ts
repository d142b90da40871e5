import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  issuanceOf,
  readDate,
  shownText,
} from "../../../../shared/adapters/transparency/certSpotterIssuance.js";
import {
  MAX_DNS_NAME,
  MAX_ISSUANCE_NAMES,
  MAX_ISSUER_TEXT,
} from "../../../../shared/core/transparency/issuance.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/** One entry of Cert Spotter's answer as the Issuance certsched keeps, one rule at a time. */

/** What escaping must leave out of a name: controls, bidi overrides and isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const TBS = "a".repeat(64);
const CERT = "b".repeat(64);
const KEY = "c".repeat(64);

/** The shape of a real entry (a 2025 page), with the expanded fields. */
const entry = (over: Record<string, unknown> = {}) => ({
  id: "9218060291",
  tbs_sha256: TBS,
  cert_sha256: CERT,
  pubkey_sha256: KEY,
  not_before: "2025-01-14T00:00:00Z",
  not_after: "2026-02-14T23:59:59Z",
  revoked: false,
  dns_names: ["example.com", "www.example.com"],
  issuer: {
    friendly_name: "DigiCert",
    website: "https://www.digicert.com/",
    caa_domains: ["digicert.com"],
    operator: { name: "DigiCert Inc", website: "https://www.digicert.com/" },
    pubkey_sha256: "d".repeat(64),
    name: "C=US, O=DigiCert Inc, CN=DigiCert Global G2 TLS RSA SHA256 2020 CA1",
  },
  revocation: { time: null, reason: null, checked_at: "2025-03-07T14:49:05Z" },
  problem_reporting: "Send email to revoke@digicert.com",
  ...over,
});

describe("issuanceOf: a readable entry", () => {
  it("keeps the id, the hashes, the validity, the names, the issuer; ignores unknown fields", () => {
    expect(issuanceOf(entry({ surprise: { nested: [1, 2] } }), 0)).toEqual({
      id: "9218060291",
      tbsSha256: TBS,
      certSha256: CERT,
      pubkeySha256: KEY,
      notBefore: new Date("2025-01-14T00:00:00Z"),
      notAfter: new Date("2026-02-14T23:59:59Z"),
      dnsNames: ["example.com", "www.example.com"],
      moreNames: 0,
      issuer: "DigiCert",
      revoked: false,
      revokedAt: undefined,
      problems: [],
    });
  });

  it("an entry with only its id: kept, each missing field said once", () => {
    expect(issuanceOf({ id: "1" }, 0)).toEqual({
      id: "1",
      tbsSha256: undefined,
      certSha256: undefined,
      pubkeySha256: undefined,
      notBefore: undefined,
      notAfter: undefined,
      dnsNames: [],
      moreNames: 0,
      issuer: undefined,
      revoked: false,
      revokedAt: undefined,
      problems: [
        "tbs_sha256 is missing",
        "cert_sha256 is missing",
        "pubkey_sha256 is missing",
        "not_before is missing",
        "not_after is missing",
      ],
    });
  });

  it("lower-cases hashes; a hash that is not 64 hex digits is left out and said", () => {
    const read = issuanceOf(
      entry({
        tbs_sha256: "ABCDEF".padEnd(64, "0"),
        cert_sha256: "z".repeat(64),
        pubkey_sha256: 5,
      }),
      0,
    );
    expect(read).toMatchObject({
      tbsSha256: "abcdef".padEnd(64, "0"),
      certSha256: undefined,
      pubkeySha256: undefined,
      problems: ["cert_sha256 is not 64 hex digits", "pubkey_sha256 is not 64 hex digits"],
    });
    expect(issuanceOf(entry({ tbs_sha256: "a".repeat(65) }), 0)).toMatchObject({
      tbsSha256: undefined,
    });
    expect(issuanceOf(entry({ tbs_sha256: undefined }), 0)).toMatchObject({
      problems: ["tbs_sha256 is missing"],
    });
  });

  it("the issuer: friendly name, else the distinguished name, else the operator's name", () => {
    const dn = "C=US, O=Let's Encrypt, CN=YR2";
    expect(issuanceOf(entry({ issuer: { name: dn, operator: null } }), 0)).toMatchObject({
      issuer: dn,
    });
    expect(
      issuanceOf(entry({ issuer: { friendly_name: 7, operator: { name: "ISRG" } } }), 0),
    ).toMatchObject({ issuer: "ISRG" });
    expect(issuanceOf(entry({ issuer: "DigiCert" }), 0)).toMatchObject({ issuer: undefined });
    const long = issuanceOf(entry({ issuer: { friendly_name: `\u202e${"x".repeat(1000)}` } }), 0);
    expect("issuer" in long && long.issuer).toMatch(/^\\u\{202e\}x+…$/);
    expect("issuer" in long && long.issuer?.length).toBe(MAX_ISSUER_TEXT);
  });

  it("revoked: by the flag or by a revocation time; the time kept when it reads", () => {
    const at = "2025-06-01T10:00:00Z";
    expect(issuanceOf(entry({ revoked: true }), 0)).toMatchObject({
      revoked: true,
      revokedAt: undefined,
    });
    expect(
      issuanceOf(entry({ revoked: undefined, revocation: { time: at, reason: 0 } }), 0),
    ).toMatchObject({ revoked: true, revokedAt: new Date(at), problems: [] });
    expect(issuanceOf(entry({ revocation: { time: "yesterday" } }), 0)).toMatchObject({
      revoked: true,
      revokedAt: undefined,
      problems: ["revocation.time is not an RFC 3339 date"],
    });
    expect(issuanceOf(entry({ revoked: "true", revocation: [] }), 0)).toMatchObject({
      revoked: false,
    });
  });
});

describe("issuanceOf: bounds on what an entry may hold", () => {
  it("10,000 names: the first 100 kept, the rest counted", () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `host${i}.example.com`);
    const read = issuanceOf(entry({ dns_names: names }), 0);
    expect(read).toMatchObject({ moreNames: 10_000 - MAX_ISSUANCE_NAMES });
    expect("dnsNames" in read && read.dnsNames).toEqual(names.slice(0, MAX_ISSUANCE_NAMES));
  });

  it("exactly 100 names: none counted as more; 101: one", () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `h${i}.example.com`);
    expect(issuanceOf(entry({ dns_names: names(100) }), 0)).toMatchObject({ moreNames: 0 });
    expect(issuanceOf(entry({ dns_names: names(101) }), 0)).toMatchObject({ moreNames: 1 });
  });

  it("control, bidi and zero-width characters are escaped; HTML stays text; a name is cut at 253", () => {
    const read = issuanceOf(
      entry({
        dns_names: [
          "evil.example.com\ncertsched ct alert: forged",
          "\u202emoc.elpmaxe",
          "exa\u200bmple.com",
          "\u001b]8;;https://x.test\u0007link",
          "<script>alert(1)</script>.example.com",
          `${"a".repeat(300)}.example.com`,
          42,
        ],
      }),
      0,
    );
    if (!("dnsNames" in read)) throw new Error("expected an issuance");
    expect(read.dnsNames.slice(0, 5)).toEqual([
      "evil.example.com\\u{0a}certsched ct alert: forged",
      "\\u{202e}moc.elpmaxe",
      "exa\\u{200b}mple.com",
      "\\u{1b}]8;;https://x.test\\u{07}link",
      "<script>alert(1)</script>.example.com",
    ]);
    expect(read.dnsNames[5]).toHaveLength(MAX_DNS_NAME);
    expect(read.dnsNames[5]?.endsWith("…")).toBe(true);
    expect(read.dnsNames).toHaveLength(6);
    expect(read.problems).toEqual(["dns_names holds 1 entries that are not text"]);
    expect(issuanceOf(entry({ dns_names: "example.com" }), 0)).toMatchObject({
      dnsNames: [],
      problems: ["dns_names is not a list"],
    });
  });

  it("dates in the year 9999 and before 1970 are left out and said; the edges are kept", () => {
    const read = issuanceOf(
      entry({ not_before: "1960-01-01T00:00:00Z", not_after: "9999-12-31T23:59:59Z" }),
      0,
    );
    expect(read).toMatchObject({
      notBefore: undefined,
      notAfter: undefined,
      problems: [
        "not_before 1960-01-01T00:00:00Z is outside 1970-01-01..9998-12-31",
        "not_after 9999-12-31T23:59:59Z is outside 1970-01-01..9998-12-31",
      ],
    });
    expect(
      issuanceOf(
        entry({ not_before: "1970-01-01T00:00:00Z", not_after: "9998-12-31T23:59:59.999Z" }),
        0,
      ),
    ).toMatchObject({
      notBefore: new Date(0),
      notAfter: new Date("9998-12-31T23:59:59.999Z"),
      problems: [],
    });
  });

  it("an entry without a readable id is left out, named by its place, never by its content", () => {
    for (const id of [undefined, 5, "", "a".repeat(41), "12 34", "<b>1</b>", "9\n9"]) {
      expect(issuanceOf(entry({ id }), 3)).toEqual({
        leftOut: "entry 4 has no id of 1 to 40 characters [0-9A-Za-z_-]",
      });
    }
    expect(issuanceOf(entry({ id: "a".repeat(40) }), 0)).toMatchObject({ id: "a".repeat(40) });
    expect(issuanceOf(entry({ id: "Ab_-09" }), 0)).toMatchObject({ id: "Ab_-09" });
    for (const junk of [null, 7, "x", [entry()]]) {
      expect(issuanceOf(junk, 0)).toEqual({ leftOut: "entry 1 is not an object" });
    }
  });
});

describe("readDate: RFC 3339 only, in 1970..9998", () => {
  it.each([
    ["2025-01-14T00:00:00Z", "2025-01-14T00:00:00.000Z"],
    ["2016-06-16T00:00:00-00:00", "2016-06-16T00:00:00.000Z"],
    ["2025-01-14t10:00:00+02:30", "2025-01-14T07:30:00.000Z"],
    ["2024-02-29 12:00:00.123456789Z", "2024-02-29T12:00:00.123Z"],
    ["9998-12-31T23:00:00+05:00", "9998-12-31T18:00:00.000Z"],
  ])("%s reads as %s", (text, iso) => {
    const read = readDate(text);
    expect(read instanceof Date && read.toISOString()).toBe(iso);
  });

  it.each([
    "2025-02-30T00:00:00Z",
    "2023-02-29T00:00:00Z",
    "2025-13-01T00:00:00Z",
    "2025-01-01T24:00:00Z",
    "2025-01-01T00:00:00+24:00",
    "2025-01-01",
    "2025-01-01T00:00:00",
    "Tue, 14 Jan 2025 00:00:00 GMT",
    "1736812800",
    `2025-01-01T00:00:00.${"1".repeat(60)}Z`,
  ])("%s is not a date", (text) => {
    expect(readDate(text)).toBe("is not an RFC 3339 date");
  });

  it("a date whose offset takes it past 9998-12-31 is outside", () => {
    expect(readDate("9998-12-31T23:00:00-05:00")).toBe(
      "9998-12-31T23:00:00-05:00 is outside 1970-01-01..9998-12-31",
    );
  });

  it("any date in range reads back as itself (property)", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date(0),
          max: new Date("9998-12-31T23:59:59.999Z"),
          noInvalidDate: true,
        }),
        (at) => {
          const read = readDate(at.toISOString());
          expect(read instanceof Date && read.getTime()).toBe(at.getTime());
        },
      ),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe("issuanceOf: whatever the entry, a bounded Issuance or a line (property)", () => {
  it("never throws; ids, names, issuer and problems stay within their bounds", () => {
    const wild = fc.oneof(
      fc.jsonValue(),
      fc.record({
        id: fc.oneof(fc.string(), fc.stringMatching(/^[0-9]{1,12}$/)),
        dns_names: fc.array(fc.oneof(fc.string({ unit: "binary" }), fc.integer()), {
          maxLength: 150,
        }),
        issuer: fc.record({ friendly_name: fc.string({ unit: "binary", maxLength: 400 }) }),
        not_after: fc.string(),
        revocation: fc.record({ time: fc.oneof(fc.constant(null), fc.string()) }),
      }),
    );
    fc.assert(
      fc.property(wild, (value) => {
        const read = issuanceOf(value, 0);
        if ("leftOut" in read) return;
        expect(read.id).toMatch(/^[0-9A-Za-z_-]{1,40}$/);
        expect(read.dnsNames.length).toBeLessThanOrEqual(MAX_ISSUANCE_NAMES);
        for (const name of read.dnsNames) {
          expect(name.length).toBeLessThanOrEqual(MAX_DNS_NAME);
          expect(name).not.toMatch(UNSAFE);
        }
        expect((read.issuer ?? "").length).toBeLessThanOrEqual(MAX_ISSUER_TEXT);
        expect(read.problems.length).toBeLessThanOrEqual(10);
      }),
      { numRuns: propertyRuns(100) },
    );
  });
});

describe("shownText", () => {
  it("escapes format characters and never splits an escape at the cut", () => {
    expect(shownText("a\u200b\u2060b", 100)).toBe("a\\u{200b}\\u{2060}b");
    expect(shownText(`${"x".repeat(8)}\u202e`, 10)).toBe("xxxxxxxx…");
  });
});
