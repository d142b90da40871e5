import { generateKeyPairSync } from "node:crypto";
import forge from "node-forge";
import type { Issued } from "./certificates.js";

/**
 * A self-signed certificate whose notAfter is not a time at all ("991399999999Z": month 13,
 * hour 99), re-signed so the TLS server loads and serves it: what a broken or hostile endpoint
 * can send. Node's X509Certificate reads its validTo as "Bad time value". Built with node-forge's
 * ASN.1 (the time field replaced in the to-be-signed part), not hand-written DER.
 */
export function certificateWithUnreadableExpiry(name: string): Issued {
  // 2048 bits, made by Node (quick): OpenSSL 3.5 (Node 24) refuses to serve a 1024-bit key.
  const { privateKey: pem } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const privateKey = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  const keys = {
    privateKey,
    publicKey: forge.pki.setRsaPublicKey(privateKey.n, privateKey.e),
  };
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = "0bad";
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: "commonName", value: name }]);
  cert.setIssuer([{ name: "commonName", value: name }]);
  cert.setExtensions([{ name: "subjectAltName", altNames: [{ type: 2, value: name }] }]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const asn1 = forge.pki.certificateToAsn1(cert);
  // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }
  const tbs = (asn1.value as forge.asn1.Asn1[])[0] as forge.asn1.Asn1;
  // TBSCertificate: [0] version, serial, signature, issuer, validity, subject, ...
  const validity = (tbs.value as forge.asn1.Asn1[])[4] as forge.asn1.Asn1;
  ((validity.value as forge.asn1.Asn1[])[1] as forge.asn1.Asn1).value = "991399999999Z";
  const md = forge.md.sha256.create();
  md.update(forge.asn1.toDer(tbs).getBytes());
  (asn1.value as forge.asn1.Asn1[])[2] = forge.asn1.create(
    forge.asn1.Class.UNIVERSAL,
    forge.asn1.Type.BITSTRING,
    false,
    `\u0000${keys.privateKey.sign(md)}`,
  );
  return {
    cert: forge.pem.encode({ type: "CERTIFICATE", body: forge.asn1.toDer(asn1).getBytes() }),
    key: forge.pki.privateKeyToPem(keys.privateKey),
  };
}
