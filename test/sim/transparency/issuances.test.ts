import { createHash, generateKeyPairSync, X509Certificate } from "node:crypto";
import forge from "node-forge";
import { describe, expect, it } from "vitest";
import {
  asPrecertificate,
  issuanceFromCertificate,
  precertificateDer,
  pubkeySha256,
  tbsSha256,
} from "../../../sim/index.js";
import { POISON_OID_DER, SCT_LIST_OID_DER } from "../../../sim/transparency/issuances.js";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * Made with `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -subj
 * /CN=www.example.com -addext subjectAltName=DNS:www.example.com,DNS:example.com` (no SCTs).
 * The hashes below came from openssl, not from the code under test:
 * - TBS: `openssl asn1parse -in c.pem -strparse 4 -noout -out tbs.der; sha256sum tbs.der`
 * - SPKI: `openssl x509 -in c.pem -pubkey -noout | openssl pkey -pubin -outform DER | sha256sum`
 * - certificate: `openssl x509 -in c.pem -outform DER | sha256sum`
 */
const OPENSSL_PEM = `-----BEGIN CERTIFICATE-----
MIIBszCCAVigAwIBAgIUTyubRNCNafikuiH+5GFF6kThTV4wCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPd3d3LmV4YW1wbGUuY29tMB4XDTI2MTIwMjEzMDgzOFoXDTM2
MTEyOTEzMDgzOFowGjEYMBYGA1UEAwwPd3d3LmV4YW1wbGUuY29tMFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAEbbZbQm9M1UEWvztqNgz577Z382q3owKOEQHnA4OU
6FLSbQfQuVqHNWcvB9aSxcQsj1fjkf3QYe+1mZuhWrOHyKN8MHowHQYDVR0OBBYE
FO4i+C74QSMtnMC3KwKA0jx8KIYgMB8GA1UdIwQYMBaAFO4i+C74QSMtnMC3KwKA
0jx8KIYgMA8GA1UdEwEB/wQFMAMBAf8wJwYDVR0RBCAwHoIPd3d3LmV4YW1wbGUu
Y29tggtleGFtcGxlLmNvbTAKBggqhkjOPQQDAgNJADBGAiEA8dkueaulnLaRiXQr
7RoS1OX6KwpeBIK6HavohKw20B8CIQDU2vfrSNBGrqc4z9XzFxA6tbuWZxmqgbs+
gEvaiDqO6w==
-----END CERTIFICATE-----
`;
const OPENSSL_TBS_SHA256 = "7f8ba8dfc0aaa3f6bc6596ba7e989663d9f31774fae2f2b713c10ee43967cf87";
const OPENSSL_SPKI_SHA256 = "d20b448d47f0d1d6468e859f3e5b44dcd03e8e01b7bca18952efbd0ddd5314e9";
const OPENSSL_CERT_SHA256 = "fcae135bb981d86ff117db4d6d915e18c91257c5e3f00d8de535cf73e88e0ac0";

const pair = generateKeyPairSync("rsa", {
  modulusLength: 1024,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
});
const SCT_EXTENSION = {
  id: "1.3.6.1.4.1.11129.2.4.2",
  value: "\u0004\u0004\u0000\u0002\u0000\u0000",
};

/** A forge certificate for www.example.test, with the extensions given after the usual ones. */
function forgeCertificate(extra: object[] = []): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey);
  cert.serialNumber = "0123456789";
  cert.validity.notBefore = new Date("2026-01-01T00:00:00Z");
  cert.validity.notAfter = new Date("2026-04-01T00:00:00Z");
  cert.setSubject([{ name: "commonName", value: "www.example.test" }]);
  cert.setIssuer([
    { name: "organizationName", value: "Test CA" },
    { name: "commonName", value: "Test CA R1" },
  ]);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    {
      name: "subjectAltName",
      altNames: [
        { type: 2, value: "www.example.test" },
        { type: 2, value: "example.test" },
      ],
    },
    ...extra,
  ]);
  cert.sign(forge.pki.privateKeyFromPem(pair.privateKey), forge.md.sha256.create());
  return cert;
}

const derOf = (cert: forge.pki.Certificate) =>
  Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), "binary");
/** The TBSCertificate forge signed: the first element of the certificate it encodes. */
function tbsBytesOf(cert: forge.pki.Certificate): Buffer {
  const [tbs] = forge.pki.certificateToAsn1(cert).value as forge.asn1.Asn1[];
  if (tbs === undefined) throw new Error("no TBSCertificate");
  return Buffer.from(forge.asn1.toDer(tbs).getBytes(), "binary");
}

describe("the simulator's issuance hashes", () => {
  it("hashes a certificate made by openssl without SCTs as openssl's own TBS, SPKI and DER bytes hash", () => {
    expect(tbsSha256(OPENSSL_PEM)).toBe(OPENSSL_TBS_SHA256);
    expect(pubkeySha256(OPENSSL_PEM)).toBe(OPENSSL_SPKI_SHA256);
    const issuance = issuanceFromCertificate(new X509Certificate(OPENSSL_PEM));
    expect(issuance).toMatchObject({
      tbsSha256: OPENSSL_TBS_SHA256,
      pubkeySha256: OPENSSL_SPKI_SHA256,
      certSha256: OPENSSL_CERT_SHA256,
      dnsNames: ["www.example.com", "example.com"],
      notBefore: new Date("2026-12-02T13:08:38Z"),
      notAfter: new Date("2036-11-29T13:08:38Z"),
    });
    expect(issuance.issuer.name).toBe("CN=www.example.com");
  });

  it("names the RFC 6962 extensions by the DER forge encodes for their OIDs", () => {
    const oid = (text: string) =>
      Buffer.from(
        forge.asn1
          .toDer(
            forge.asn1.create(
              forge.asn1.Class.UNIVERSAL,
              forge.asn1.Type.OID,
              false,
              forge.asn1.oidToDer(text).getBytes(),
            ),
          )
          .getBytes(),
        "binary",
      );
    expect(SCT_LIST_OID_DER.equals(oid("1.3.6.1.4.1.11129.2.4.2"))).toBe(true);
    expect(POISON_OID_DER.equals(oid("1.3.6.1.4.1.11129.2.4.3"))).toBe(true);
  });

  it("leaves the embedded SCT list out of tbs_sha256: a certificate with SCTs has the TBS hash of the same certificate without them", () => {
    const plain = forgeCertificate();
    const withScts = forgeCertificate([SCT_EXTENSION]);
    expect(tbsSha256(derOf(plain))).toBe(sha256(tbsBytesOf(plain)));
    expect(tbsSha256(derOf(withScts))).toBe(sha256(tbsBytesOf(plain)));
    expect(sha256(tbsBytesOf(withScts))).not.toBe(sha256(tbsBytesOf(plain)));
    expect(pubkeySha256(derOf(withScts))).toBe(pubkeySha256(derOf(plain)));
  });

  it("leaves the poison out too: a precertificate made with forge hashes as its certificate", () => {
    const poison = { id: "1.3.6.1.4.1.11129.2.4.3", critical: true, value: "\u0005\u0000" };
    const precert = forgeCertificate([poison]);
    const cert = forgeCertificate([SCT_EXTENSION]);
    expect(tbsSha256(derOf(precert))).toBe(tbsSha256(derOf(cert)));
    expect(tbsSha256(derOf(precert))).toBe(sha256(tbsBytesOf(forgeCertificate())));
  });

  it("makes a precertificate entry with the same tbs_sha256 and pubkey_sha256 and another cert_sha256, whose DER carries the poison and no SCTs", () => {
    const cert = derOf(forgeCertificate([SCT_EXTENSION]));
    const final = issuanceFromCertificate(cert);
    const pre = asPrecertificate(final);
    expect(pre.tbsSha256).toBe(final.tbsSha256);
    expect(pre.pubkeySha256).toBe(final.pubkeySha256);
    expect(pre.certSha256).not.toBe(final.certSha256);
    expect(pre.certDer).toBeDefined();
    expect(pre.certSha256).toBe(sha256(pre.certDer ?? Buffer.alloc(0)));
    // Read back by Node's X.509 parser and by forge: a well-formed certificate, poisoned.
    const x509 = new X509Certificate(pre.certDer ?? Buffer.alloc(0));
    expect(x509.subjectAltName).toBe("DNS:www.example.test, DNS:example.test");
    expect(x509.serialNumber).toBe(new X509Certificate(cert).serialNumber);
    const parsed = forge.pki.certificateFromAsn1(
      forge.asn1.fromDer((pre.certDer ?? Buffer.alloc(0)).toString("binary")),
    );
    const ids = parsed.extensions.map((e: { id: string }) => e.id);
    expect(ids).toContain("1.3.6.1.4.1.11129.2.4.3");
    expect(ids).not.toContain("1.3.6.1.4.1.11129.2.4.2");
    // Hashing the precertificate on its own gives the certificate's issuance hashes.
    expect(issuanceFromCertificate(pre.certDer ?? Buffer.alloc(0))).toMatchObject({
      tbsSha256: final.tbsSha256,
      pubkeySha256: final.pubkeySha256,
      certSha256: pre.certSha256,
    });
    expect(precertificateDer(cert).equals(pre.certDer ?? Buffer.alloc(0))).toBe(true);
  });

  it("gives an openssl certificate without SCTs a precertificate of the same TBS hash", () => {
    const pre = asPrecertificate(issuanceFromCertificate(OPENSSL_PEM));
    expect(pre.tbsSha256).toBe(OPENSSL_TBS_SHA256);
    expect(tbsSha256(pre.certDer ?? Buffer.alloc(0))).toBe(OPENSSL_TBS_SHA256);
    expect(pre.certSha256).not.toBe(OPENSSL_CERT_SHA256);
  });

  it("refuses bytes that are not a DER certificate", () => {
    expect(() => tbsSha256(Buffer.from([0x30, 0x82, 0xff, 0xff, 0x00]))).toThrow(
      /not a DER certificate/,
    );
    expect(() => tbsSha256(Buffer.from([0x30, 0x00]))).toThrow(/not a DER certificate/);
  });
});
