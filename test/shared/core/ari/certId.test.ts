import { X509Certificate } from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { certId, certIdOf, certificateDer } from "../../../../shared/core/ari/certId.js";
import { type IssuedLeaf, issueLeaf, opensslCertId } from "../../../support/ariCertificates.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/** RFC 9773's CertID, against openssl's own reading of each certificate. */

let rsa: IssuedLeaf;
let ec: IssuedLeaf;
let ecLowSerial: IssuedLeaf;
let noAki: IssuedLeaf;
beforeAll(async () => {
  [rsa, ec, ecLowSerial, noAki] = await Promise.all([
    issueLeaf({ key: "rsa", serial: "87654321" }),
    issueLeaf({ key: "ec", serial: "FF00000000000000000000000000000000000001" }),
    issueLeaf({ key: "ec", serial: "01" }),
    issueLeaf({ key: "rsa", serial: "1234", aki: false }),
  ]);
}, 60_000);

describe("certId", () => {
  it("is RFC 9773's own example (section 4.1): keyIdentifier 69:88:5B:…, serial 00:87:65:43:21", () => {
    const aki = Buffer.from("69885B6B87464041E1B37B847BA0AE2CDE01C8D4", "hex");
    const serial = Buffer.from("0087654321", "hex");
    expect(certId(aki, serial)).toBe("aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE");
  });

  it("refuses an empty part rather than sending a CertID no CA knows", () => {
    expect(() => certId(Buffer.alloc(0), Buffer.from([1]))).toThrow(RangeError);
    expect(() => certId(Buffer.from([1]), Buffer.alloc(0))).toThrow(RangeError);
  });
});

describe("certIdOf a certificate, against openssl", () => {
  it("an RSA leaf whose serial has its high bit set: the leading 00 of the DER INTEGER stays", () => {
    expect(rsa.opensslSerial).toBe("87654321");
    const result = certIdOf(rsa.pem);
    expect(result).toEqual({
      ok: true,
      certId: opensslCertId(rsa),
      authorityKeyId: rsa.opensslAki,
      serial: "0087654321",
    });
    expect(result.ok && result.certId.split(".")[1]).toBe("AIdlQyE");
  });

  it("an EC (P-256) leaf with a 20-byte serial, from PEM and from DER alike", () => {
    expect(ec.text).toContain("prime256v1");
    const expected = opensslCertId(ec);
    expect(certIdOf(ec.pem)).toMatchObject({ ok: true, certId: expected });
    const der = new X509Certificate(ec.pem).raw;
    expect(certIdOf(der)).toMatchObject({ ok: true, certId: expected });
    expect(expected.split(".")[1]).toBe(
      Buffer.from("00FF00000000000000000000000000000000000001", "hex").toString("base64url"),
    );
  });

  it("a one-byte serial is one byte (no padding, no leading zero)", () => {
    const result = certIdOf(ecLowSerial.pem);
    expect(result).toMatchObject({ ok: true, certId: opensslCertId(ecLowSerial), serial: "01" });
    expect(result.ok && result.certId.endsWith(".AQ")).toBe(true);
  });

  it("no Authority Key Identifier: no CertID, said so", () => {
    expect(noAki.opensslAki).toBeUndefined();
    expect(certIdOf(noAki.pem)).toEqual({ ok: false, reason: "no-authority-key-id" });
  });

  it("text that holds no certificate, or bytes that are not one, are unreadable", () => {
    expect(certIdOf("hello")).toEqual({ ok: false, reason: "unreadable" });
    expect(certificateDer("no pem here")).toBeUndefined();
    expect(certIdOf(Buffer.from([0x30, 0x03, 0x02, 0x01]))).toEqual({
      ok: false,
      reason: "unreadable",
    });
  });

  it("every truncation of a real certificate is unreadable or the same answer, never a throw", () => {
    const der = new X509Certificate(rsa.pem).raw;
    const whole = certIdOf(der);
    for (let length = 0; length < der.length; length++) {
      const result = certIdOf(der.subarray(0, length));
      // The outer length no longer fits: a cut certificate is never read as another one.
      expect(result).toEqual({ ok: false, reason: "unreadable" });
    }
    expect(whole.ok).toBe(true);
  });

  it("random bytes and random corruptions of a certificate never throw", () => {
    const der = new Uint8Array(new X509Certificate(ec.pem).raw);
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 600 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        (random, flips) => {
          const corrupt = der.slice();
          for (const [at, value] of flips) corrupt[at % corrupt.length] = value;
          for (const bytes of [random, corrupt]) {
            const result = certIdOf(bytes);
            expect(typeof result.ok).toBe("boolean");
          }
        },
      ),
      { numRuns: propertyRuns(200) },
    );
  });
});
