import { createHash } from "node:crypto";
import forge from "node-forge";
import type { TestCa } from "./certificates.js";

/**
 * Certificates as a CA that logs to Certificate Transparency issues them, built with node-forge:
 * the precertificate (the TBS with the critical poison extension), the final certificate (the
 * same TBS with the SCT list extension where the poison was), and the same TBS with neither,
 * whose SHA-256 is what RFC 6962 3.2 hashes for both. The SCT list holds arbitrary bytes: no
 * reader of certsched's looks inside it.
 */

/** RFC 6962 3.3: the embedded SCT list. */
export const SCT_LIST_OID = "1.3.6.1.4.1.11129.2.4.2";
/** RFC 6962 3.1: the precertificate poison (critical, extnValue NULL). */
export const POISON_OID = "1.3.6.1.4.1.11129.2.4.3";

/** Which CT extension the TBS carries, at `at` among the others. */
export type CtKind = "certificate" | "precertificate" | "neither";

export interface CtCertificateOptions {
  /** The names (DNS) of the subjectAltName extension; none: no such extension. */
  readonly names?: readonly string[];
  /** Extensions besides the CT one, each an opaque private extension of this many value bytes. */
  readonly others?: readonly number[];
  /** Where among the others the CT extension goes (clamped to their count). */
  readonly at?: number;
  /** Bytes of the SCT list. */
  readonly sctBytes?: number;
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  /** Signs with the CA's key; unset: a signature of zero bytes (nothing verifies it). */
  readonly ca?: TestCa;
  /** PEM public key of the subject; unset: the CA's, or a fixed test key. */
  readonly publicKey?: string;
}

const HOUR = 3_600_000;
/** A fixed notBefore so that every kind of one certificate has the same TBS. */
const FIXED = new Date(Math.floor(Date.now() / HOUR) * HOUR);

let fallbackKey: forge.pki.rsa.KeyPair | undefined;

/** Repeatable bytes (a counter pattern): the same options make the same certificate. */
const bytes = (n: number, seed: number) =>
  String.fromCharCode(...Array.from({ length: n }, (_, i) => (i * 31 + seed) % 256));

function ctExtension(kind: CtKind, sctBytes: number): object[] {
  if (kind === "neither") return [];
  if (kind === "precertificate") return [{ id: POISON_OID, critical: true, value: "\u0005\u0000" }];
  // extnValue holds an OCTET STRING holding the list (RFC 6962 3.3).
  const list = forge.asn1.create(
    forge.asn1.Class.UNIVERSAL,
    forge.asn1.Type.OCTETSTRING,
    false,
    bytes(sctBytes, 7),
  );
  return [{ id: SCT_LIST_OID, value: forge.asn1.toDer(list).getBytes() }];
}

function extensionsOf(kind: CtKind, options: CtCertificateOptions): object[] {
  const others: object[] = (options.others ?? []).map((size, i) => ({
    id: `1.3.6.1.4.1.55555.1.${i + 1}`,
    value: bytes(size, i),
  }));
  if (options.names !== undefined) {
    others.unshift({
      name: "subjectAltName",
      altNames: options.names.map((value) => ({ type: 2, value })),
    });
  }
  const at = Math.min(options.at ?? others.length, others.length);
  return [
    ...others.slice(0, at),
    ...ctExtension(kind, options.sctBytes ?? 120),
    ...others.slice(at),
  ];
}

const caKey = (ca: TestCa) => forge.pki.privateKeyFromPem(ca.key) as forge.pki.rsa.PrivateKey;

function keyOf(options: CtCertificateOptions): forge.pki.PublicKey {
  if (options.publicKey) return forge.pki.publicKeyFromPem(options.publicKey);
  if (options.ca) {
    const key = caKey(options.ca);
    return forge.pki.setRsaPublicKey(key.n, key.e);
  }
  fallbackKey ??= forge.pki.rsa.generateKeyPair({ bits: 512, e: 0x10001 });
  return fallbackKey.publicKey;
}

/** One kind of the certificate `options` describe, unsigned or signed by `options.ca`. */
function build(kind: CtKind, options: CtCertificateOptions): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = keyOf(options);
  cert.serialNumber = "0c7a11";
  cert.validity.notBefore = options.notBefore ?? FIXED;
  cert.validity.notAfter = options.notAfter ?? new Date(FIXED.getTime() + 90 * 24 * HOUR);
  const subject = [{ name: "commonName", value: options.names?.[0] ?? "ct.test" }];
  cert.setSubject(subject);
  cert.setIssuer([{ name: "commonName", value: options.ca?.commonName ?? "ct test CA" }]);
  cert.setExtensions(extensionsOf(kind, options));
  if (options.ca) {
    cert.sign(caKey(options.ca), forge.md.sha256.create());
  } else {
    const signed = cert as unknown as Record<string, unknown>;
    signed.signatureOid = forge.pki.oids.sha256WithRSAEncryption;
    (cert.siginfo as { algorithmOid: string }).algorithmOid = forge.pki.oids
      .sha256WithRSAEncryption as string;
    signed.signature = "";
  }
  return cert;
}

export interface CtCertificate {
  /** DER of the certificate. */
  readonly der: Buffer;
  /** PEM of the certificate. */
  readonly pem: string;
  /** DER of its TBSCertificate, as issued. */
  readonly tbs: Buffer;
}

/** The certificate of `kind`. */
export function ctCertificate(kind: CtKind, options: CtCertificateOptions = {}): CtCertificate {
  const cert = build(kind, options);
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), "binary");
  // node-forge has it, its typings do not.
  const tbsOf = (forge.pki as unknown as { getTBSCertificate(c: unknown): forge.asn1.Asn1 })
    .getTBSCertificate;
  const tbs = Buffer.from(forge.asn1.toDer(tbsOf(cert)).getBytes(), "binary");
  return { der, pem: forge.pki.certificateToPem(cert), tbs };
}

/** SHA-256 of the TBS without either CT extension: RFC 6962's hash of every kind, hex. */
export function expectedTbsSha256(options: CtCertificateOptions = {}): string {
  return createHash("sha256").update(ctCertificate("neither", options).tbs).digest("hex");
}
