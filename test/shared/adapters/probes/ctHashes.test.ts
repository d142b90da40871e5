import { execFileSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import forge from "node-forge";
import { afterAll, describe, expect, it } from "vitest";
import { ctHashesOfDer, ctTbs, spkiOf } from "../../../../shared/adapters/probes/ctHashes.js";
import { makeCa } from "../../../support/certificates.js";
import {
  type CtCertificateOptions,
  ctCertificate,
  expectedTbsSha256,
} from "../../../support/ctCertificates.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/**
 * The Certificate Transparency hashes of a certificate: its public key's, and its TBS's as
 * RFC 6962 3.2 defines it, the same for the precertificate and the certificate with its SCTs.
 */

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const HEX64 = /^[0-9a-f]{64}$/;

const dir = mkdtempSync(join(tmpdir(), "certsched-ct-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `openssl x509 -pubkey | openssl pkey -pubin -outform DER | sha256`, as an operator checks it. */
function opensslPubkeySha256(pem: string): string {
  const spkiPem = execFileSync("openssl", ["x509", "-pubkey", "-noout"], { input: pem });
  const der = execFileSync("openssl", ["pkey", "-pubin", "-outform", "DER"], { input: spkiPem });
  return sha256(der);
}

/** A self-signed certificate made by openssl, with the extensions given as `-addext` lines. */
function opensslCertificate(name: string, keyArgs: string[], addext: string[] = []): string {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  execFileSync("openssl", [...keyArgs, "-out", key]);
  execFileSync("openssl", [
    ...["req", "-new", "-x509", "-key", key, "-out", cert, "-days", "30", "-sha256"],
    ...["-subj", "/CN=www.contoso.test", "-set_serial", "0x0ddba11"],
    ...addext.flatMap((e) => ["-addext", e]),
  ]);
  return readFileSync(cert, "utf8");
}

const ca = makeCa("ct hashes CA");

/** The TBS of a certificate as issued, read by node-forge. */
function tbsOf(der: Uint8Array): forge.asn1.Asn1 {
  const binary = forge.util.createBuffer(Buffer.from(der).toString("binary"));
  const certificate = forge.asn1.fromDer(binary);
  return (certificate.value as forge.asn1.Asn1[])[0] as forge.asn1.Asn1;
}
const tbsAsIssued = (der: Uint8Array) =>
  Buffer.from(forge.asn1.toDer(tbsOf(der)).getBytes(), "binary");
const firstTbsField = (der: Uint8Array) => (tbsOf(der).value as forge.asn1.Asn1[])[0]?.type;

describe("tbsSha256: RFC 6962 3.2's TBSCertificate", () => {
  it("a certificate with embedded SCTs hashes as its TBS without them, and as its precertificate", () => {
    const options: CtCertificateOptions = {
      names: ["www.contoso.test"],
      others: [20, 3],
      at: 1,
      sctBytes: 300,
      ca,
    };
    const certificate = ctCertificate("certificate", options);
    const precertificate = ctCertificate("precertificate", options);
    const expected = expectedTbsSha256(options);

    expect(ctHashesOfDer(certificate.der).tbsSha256).toBe(expected);
    expect(ctHashesOfDer(precertificate.der).tbsSha256).toBe(expected);
    // The three are different certificates: only the hash of RFC 6962's TBS is shared.
    expect(sha256(certificate.tbs)).not.toBe(expected);
    expect(sha256(precertificate.tbs)).not.toBe(expected);
    expect(new X509Certificate(certificate.der).fingerprint256).not.toBe(
      new X509Certificate(precertificate.der).fingerprint256,
    );
  });

  it("a certificate without CT extensions hashes its TBS as issued, byte for byte", () => {
    const plain = ctCertificate("neither", { names: ["www.contoso.test"], ca });
    expect(ctHashesOfDer(plain.der).tbsSha256).toBe(sha256(plain.tbs));
    expect(Buffer.from(ctTbs(plain.der) ?? [])).toEqual(plain.tbs);
  });

  it("SCTs as the only extension: the TBS without them has no extensions field at all", () => {
    // RFC 5280 allows no empty Extensions; the TBS without its one extension leaves [3] out.
    const options: CtCertificateOptions = { sctBytes: 40 };
    const bare = ctCertificate("neither", options);
    // version, serial, signature, issuer, validity, subject, key: no [3] after them.
    const fields = forge.asn1.fromDer(forge.util.createBuffer(bare.tbs.toString("binary")));
    expect((fields.value as forge.asn1.Asn1[]).length).toBe(7);
    for (const kind of ["certificate", "precertificate"] as const) {
      const tbs = ctTbs(ctCertificate(kind, options).der);
      expect(Buffer.from(tbs ?? [])).toEqual(bare.tbs);
    }
  });

  it("openssl's certificate with an SCT list (arbitrary bytes) and its precertificate agree", () => {
    const key = join(dir, "shared.key");
    execFileSync("openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key]);
    const make = (name: string, ext: string[]) => {
      const out = join(dir, `${name}.pem`);
      execFileSync("openssl", [
        ...["req", "-new", "-x509", "-key", key, "-out", out, "-sha256", "-set_serial", "7"],
        ...["-days", "30", "-subj", "/CN=www.contoso.test"],
        ...["-addext", "subjectAltName=DNS:www.contoso.test"],
        ...ext.flatMap((e) => ["-addext", e]),
        ...["-addext", "keyUsage=critical,digitalSignature"],
      ]);
      return new X509Certificate(readFileSync(out, "utf8"));
    };
    // OpenSSL 3.0's `req -x509` dates from now, in whole seconds: made again until all three
    // started in the same second, so they differ by their CT extension only.
    for (let attempt = 0; attempt < 5; attempt++) {
      const sct = make("sct", ["1.3.6.1.4.1.11129.2.4.2=DER:04:05:00:03:01:02:03"]);
      const poisoned = make("poisoned", ["1.3.6.1.4.1.11129.2.4.3=critical,DER:05:00"]);
      const neither = make("neither", []);
      if (sct.validFrom !== neither.validFrom || poisoned.validFrom !== neither.validFrom) continue;
      expect(ctHashesOfDer(sct.raw).tbsSha256).toBe(sha256(ctTbs(neither.raw) ?? "none"));
      expect(ctHashesOfDer(poisoned.raw).tbsSha256).toBe(ctHashesOfDer(sct.raw).tbsSha256);
      // Not the TBS as issued: that one holds the SCT list.
      expect(ctHashesOfDer(sct.raw).tbsSha256).not.toBe(sha256(tbsAsIssued(sct.raw)));
      return;
    }
    throw new Error("openssl never made three certificates in one second");
  });

  it("whatever the extensions' sizes and the SCT list's place, all three kinds agree (property)", () => {
    const shape = fc.record({
      names: fc.option(fc.array(fc.domain(), { minLength: 1, maxLength: 3 }), { nil: undefined }),
      // Sizes either side of DER's short and one-byte length forms (127, 255); the longer
      // forms have their own case below (a certificate of 200 KiB takes a second to build).
      others: fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 4 }),
      at: fc.nat({ max: 5 }),
      sctBytes: fc.integer({ min: 1, max: 400 }),
    });
    fc.assert(
      fc.property(shape, (options) => {
        const expected = expectedTbsSha256(options);
        expect(ctHashesOfDer(ctCertificate("certificate", options).der).tbsSha256).toBe(expected);
        expect(ctHashesOfDer(ctCertificate("precertificate", options).der).tbsSha256).toBe(
          expected,
        );
      }),
      { numRuns: propertyRuns(40) },
    );
  });

  it("lengths in two and three bytes (extensions of 64 KiB and more) re-encode right", () => {
    const options: CtCertificateOptions = { others: [65_600, 200], at: 1, sctBytes: 66_000 };
    const expected = expectedTbsSha256(options);
    expect(ctHashesOfDer(ctCertificate("certificate", options).der).tbsSha256).toBe(expected);
    expect(ctHashesOfDer(ctCertificate("precertificate", options).der).tbsSha256).toBe(expected);
  });
});

describe("pubkeySha256: the SubjectPublicKeyInfo's", () => {
  it.each([
    ["RSA 2048", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]],
    ["EC P-256", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]],
    ["EC P-384", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]],
    ["Ed25519", ["genpkey", "-algorithm", "ED25519"]],
  ])("%s: as openssl and Node's export give it", (name, keyArgs) => {
    const pem = opensslCertificate(name.replace(/\W/g, ""), keyArgs);
    const x509 = new X509Certificate(pem);
    const hashes = ctHashesOfDer(x509.raw);
    expect(hashes.pubkeySha256).toMatch(HEX64);
    expect(hashes.pubkeySha256).toBe(opensslPubkeySha256(pem));
    expect(hashes.pubkeySha256).toBe(
      sha256(x509.publicKey.export({ type: "spki", format: "der" })),
    );
  });

  it("the precertificate and the certificate share it (one key)", () => {
    const options: CtCertificateOptions = { names: ["a.contoso.test"], ca };
    const certificate = ctHashesOfDer(ctCertificate("certificate", options).der);
    const precertificate = ctHashesOfDer(ctCertificate("precertificate", options).der);
    expect(certificate.pubkeySha256).toBe(precertificate.pubkeySha256);
    expect(certificate.pubkeySha256).toBe(opensslPubkeySha256(ca.cert));
  });

  it("a version 1 certificate (no explicit version, no extensions) still has both", () => {
    const key = join(dir, "v1.key");
    const csr = join(dir, "v1.csr");
    const out = join(dir, "v1.pem");
    execFileSync("openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key]);
    execFileSync("openssl", ["req", "-new", "-key", key, "-subj", "/CN=v1.test", "-out", csr]);
    execFileSync("openssl", [
      "x509",
      "-req",
      "-in",
      csr,
      "-signkey",
      key,
      "-days",
      "3",
      "-out",
      out,
    ]);
    const pem = readFileSync(out, "utf8");
    const x509 = new X509Certificate(pem);
    // The TBS's first field is the serial (INTEGER), not the [0] version.
    expect(firstTbsField(x509.raw)).toBe(forge.asn1.Type.INTEGER);
    expect(ctHashesOfDer(x509.raw).pubkeySha256).toBe(opensslPubkeySha256(pem));
    expect(Buffer.from(spkiOf(x509.raw) ?? [])).toEqual(
      x509.publicKey.export({ type: "spki", format: "der" }),
    );
    expect(Buffer.from(ctTbs(x509.raw) ?? [])).toEqual(tbsAsIssued(x509.raw));
  });
});

describe("a strange certificate: no hash, never an exception", () => {
  const good = ctCertificate("certificate", { names: ["www.contoso.test"], sctBytes: 200 }).der;

  it.each([
    ["nothing", Buffer.alloc(0)],
    ["one byte", Buffer.from([0x30])],
    ["not a SEQUENCE", Buffer.from([0x04, 0x02, 0x30, 0x00])],
    ["an indefinite length", Buffer.from([0x30, 0x80, 0x30, 0x80, 0x00, 0x00, 0x00, 0x00])],
    ["a length of 5 bytes", Buffer.from([0x30, 0x85, 0, 0, 0, 0, 2, 0x30, 0x00])],
    ["a length past the end", Buffer.concat([Buffer.from([0x30, 0x82, 0xff, 0xff]), good])],
    ["a high tag number", Buffer.from([0x30, 0x04, 0x1f, 0x81, 0x01, 0x00])],
    ["trailing bytes", Buffer.concat([good, Buffer.from([0x00])])],
    ["cut short", good.subarray(0, good.length - 10)],
  ])("%s", (_name, der) => {
    expect(ctHashesOfDer(der)).toEqual({});
  });

  it("an extensions field that is not a list of extensions: the key's hash, no TBS hash", () => {
    // [3] holding an INTEGER instead of a SEQUENCE of extensions, lengths kept consistent.
    const tbs = Buffer.from([0x30, 0x0d, 0xa0, 0x03, 0x02, 0x01, 0x02, 0x30, 0x02, 0x30, 0x00]);
    const bad = Buffer.concat([tbs, Buffer.from([0xa3, 0x03, 0x02, 0x01, 0x05])]);
    bad[1] = bad.length - 2;
    const der = Buffer.concat([Buffer.from([0x30, bad.length]), bad]);
    expect(ctTbs(der)).toBeUndefined();
    expect(() => ctHashesOfDer(der)).not.toThrow();
  });

  it("any bytes at all, and any single byte of a certificate changed (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
          fc
            .tuple(fc.nat({ max: good.length - 1 }), fc.integer({ min: 0, max: 255 }))
            .map(([i, b]) => {
              const copy = Buffer.from(good);
              copy[i] = b;
              return copy;
            }),
        ),
        (der) => {
          const hashes = ctHashesOfDer(der);
          for (const value of Object.values(hashes)) expect(value).toMatch(HEX64);
        },
      ),
      { numRuns: propertyRuns(2_000) },
    );
  });
});
