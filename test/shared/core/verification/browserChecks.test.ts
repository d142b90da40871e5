import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ServedCertificate } from "../../../../shared/core/ports/probes.js";
import {
  incompleteChain,
  tooLong,
  validityLimitDays,
  weak,
} from "../../../../shared/core/verification/browserChecks.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/**
 * The three checks on their own, at every boundary the contract names (docs/contracts/verify.md,
 * "Extended statuses"); judge.browser.test.ts has them on real sockets and in the order.
 */

const DAY_S = 86_400;
const SHA256_RSA = { oid: "1.2.840.113549.1.1.11", name: "sha256WithRSAEncryption" };

function cert(overrides: Partial<ServedCertificate> = {}): ServedCertificate {
  return {
    notBefore: new Date("2026-06-01T00:00:00Z"),
    notAfter: new Date("2026-08-30T00:00:00Z"),
    issuer: "CN=Issuing CA",
    subject: "CN=www.contoso.test",
    serial: "01",
    thumbprint: "AB",
    altNames: ["DNS:www.contoso.test"],
    key: { type: "rsa", bits: 2048 },
    signature: SHA256_RSA,
    selfIssued: false,
    ...overrides,
  };
}

/** A certificate valid `seconds` from `notBefore`. */
const lasting = (notBefore: string, seconds: number) => {
  const from = new Date(notBefore);
  return cert({ notBefore: from, notAfter: new Date(from.getTime() + seconds * 1000) });
};

describe("weak: key sizes and the signature", () => {
  it("RSA: 2047 bits is weak, 2048 is not", () => {
    expect(weak(cert({ key: { type: "rsa", bits: 2047 } }))?.detail).toBe(
      "the certificate has an RSA key of 2047 bits, under 2048: browsers refuse it",
    );
    expect(weak(cert({ key: { type: "rsa", bits: 2048 } }))).toBeUndefined();
    expect(weak(cert({ key: { type: "rsa", bits: 1024 } }))?.status).toBe("weak");
    expect(weak(cert({ key: { type: "rsa-pss", bits: 2047 } }))?.status).toBe("weak");
  });

  it("EC: 255 bits is weak, 256 is not; P-384 is not", () => {
    expect(weak(cert({ key: { type: "ec", bits: 255, curve: "x255" } }))?.detail).toBe(
      "the certificate has an EC key of 255 bits (x255), under P-256: browsers refuse it",
    );
    expect(weak(cert({ key: { type: "ec", bits: 256, curve: "prime256v1" } }))).toBeUndefined();
    expect(weak(cert({ key: { type: "ec", bits: 224, curve: "secp224r1" } }))?.status).toBe("weak");
    expect(weak(cert({ key: { type: "ec", bits: 384, curve: "secp384r1" } }))).toBeUndefined();
  });

  it("a SHA-1 signature is weak whatever the key; SHA-256 is not", () => {
    const sha1 = { oid: "1.2.840.113549.1.1.5", name: "sha1WithRSAEncryption" };
    expect(weak(cert({ signature: sha1 }))?.detail).toBe(
      "the certificate has a sha1WithRSAEncryption signature: browsers refuse it",
    );
    expect(
      weak(cert({ signature: { oid: "1.2.840.10045.4.1", name: "ecdsa-with-SHA1" } }))?.status,
    ).toBe("weak");
    expect(weak(cert({ key: { type: "rsa", bits: 1024 }, signature: sha1 }))?.detail).toContain(
      "an RSA key of 1024 bits, under 2048 and a sha1WithRSAEncryption signature",
    );
    expect(weak(cert())).toBeUndefined();
  });

  it("an Ed25519 key, or a key Node cannot size, is not weak by size", () => {
    expect(weak(cert({ key: { type: "ed25519", bits: undefined } }))).toBeUndefined();
    expect(weak(cert({ key: undefined, signature: undefined }))).toBeUndefined();
  });
});

describe("too-long: the limit in force on notBefore, exactly the limit allowed", () => {
  const cases = [
    { notBefore: "2026-03-14T23:59:59Z", days: 398 },
    { notBefore: "2026-03-15T00:00:00Z", days: 200 },
    { notBefore: "2027-03-14T23:59:59Z", days: 200 },
    { notBefore: "2027-03-15T00:00:00Z", days: 100 },
    { notBefore: "2029-03-14T23:59:59Z", days: 100 },
    { notBefore: "2029-03-15T00:00:00Z", days: 47 },
    { notBefore: "2020-01-01T00:00:00Z", days: 398 },
    { notBefore: "2040-01-01T00:00:00Z", days: 47 },
  ];

  it.each(cases)("from $notBefore: $days days", ({ notBefore, days }) => {
    expect(validityLimitDays(new Date(notBefore))).toBe(days);
    const limit = days * DAY_S;
    expect(tooLong(lasting(notBefore, limit - 1))).toBeUndefined();
    expect(tooLong(lasting(notBefore, limit))).toBeUndefined();
    expect(tooLong(lasting(notBefore, limit + 1))?.status).toBe("too-long");
  });

  it("says how long, the limit and the step in one line", () => {
    expect(tooLong(lasting("2026-03-15T00:00:00Z", 200 * DAY_S + 1))?.detail).toBe(
      "valid for 200 days and 1 s (from 2026-03-15T00:00:00.000Z to 2026-10-01T00:00:01.000Z), more than the 200 days the CA/Browser Forum allows a certificate issued from 2026-03-15 on: browsers refuse it",
    );
    expect(tooLong(lasting("2026-01-01T00:00:00Z", 400 * DAY_S))?.detail).toContain(
      "valid for 400 days (from 2026-01-01T00:00:00.000Z to 2027-02-05T00:00:00.000Z), more than the 398 days the CA/Browser Forum allows a certificate issued before 2026-03-15",
    );
  });

  it("a 398-day certificate issued the second before the first step is allowed; the second after, it is not", () => {
    expect(tooLong(lasting("2026-03-14T23:59:59Z", 398 * DAY_S))).toBeUndefined();
    expect(tooLong(lasting("2026-03-15T00:00:00Z", 398 * DAY_S))?.status).toBe("too-long");
  });
});

describe("incomplete-chain", () => {
  it("only when the leaf's issuer was found nowhere and the leaf is not self-issued", () => {
    expect(incompleteChain(cert(), false)?.detail).toBe(
      "the endpoint does not send the certificate that issued its certificate (CN=Issuing CA), and no trusted root is that issuer: browsers and clients that do not fetch missing intermediates refuse it",
    );
    expect(incompleteChain(cert(), true)).toBeUndefined();
    expect(incompleteChain(cert({ selfIssued: true }), false)).toBeUndefined();
    // A vault read serves no chain: nothing to judge.
    expect(incompleteChain(cert(), undefined)).toBeUndefined();
  });

  it("escapes the issuer the server sent", () => {
    expect(incompleteChain(cert({ issuer: "CN=Evil\u001b[2J" }), false)?.detail).not.toContain(
      "\u001b",
    );
  });
});

describe("properties", () => {
  const instant = fc.date({
    min: new Date("2000-01-01T00:00:00Z"),
    max: new Date("2050-01-01T00:00:00Z"),
    noInvalidDate: true,
  });

  it("the limit never grows with a later notBefore, and is one of the four steps", () => {
    fc.assert(
      fc.property(instant, instant, (a, b) => {
        const [early, late] = a <= b ? [a, b] : [b, a];
        expect([398, 200, 100, 47]).toContain(validityLimitDays(early));
        expect(validityLimitDays(early)).toBeGreaterThanOrEqual(validityLimitDays(late));
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it("too-long exactly when the validity in seconds exceeds the limit on notBefore; one line", () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: 0, max: 500 * DAY_S }), (from, seconds) => {
        const notBefore = new Date(Math.floor(from.getTime() / 1000) * 1000);
        const c = lasting(notBefore.toISOString(), seconds);
        const found = tooLong(c);
        expect(found !== undefined).toBe(seconds > validityLimitDays(notBefore) * DAY_S);
        if (found) expect(found.detail).not.toMatch(/\n/);
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});
