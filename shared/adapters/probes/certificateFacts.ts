import { X509Certificate } from "node:crypto";
import type tls from "node:tls";
import type Forge from "node-forge";
import { certIdOf } from "../../core/ari/certId.js";
import type { PublicKeyFacts, ServedCertificate, SignatureFacts } from "../../core/ports/probes.js";
import { ctHashesOfDer } from "./ctHashes.js";
import { forge } from "./forgeAsn1.js";

/**
 * What a browser weighs in a certificate beyond its dates and names: the key, the
 * signature's algorithm, and whether the endpoint sent what a client needs to build the chain.
 */

/** Signature algorithms by OID; an OID not listed is shown as the OID itself. */
const SIGNATURE_NAMES: Readonly<Record<string, string>> = {
  "1.2.840.113549.1.1.2": "md2WithRSAEncryption",
  "1.2.840.113549.1.1.4": "md5WithRSAEncryption",
  "1.2.840.113549.1.1.5": "sha1WithRSAEncryption",
  "1.3.14.3.2.29": "sha1WithRSASignature",
  "1.2.840.10045.4.1": "ecdsa-with-SHA1",
  "1.2.840.10040.4.3": "dsa-with-sha1",
  "1.2.840.113549.1.1.11": "sha256WithRSAEncryption",
  "1.2.840.113549.1.1.12": "sha384WithRSAEncryption",
  "1.2.840.113549.1.1.13": "sha512WithRSAEncryption",
  "1.2.840.113549.1.1.10": "rsassa-pss",
  "1.2.840.10045.4.3.2": "ecdsa-with-SHA256",
  "1.2.840.10045.4.3.3": "ecdsa-with-SHA384",
  "1.2.840.10045.4.3.4": "ecdsa-with-SHA512",
  "1.3.101.112": "ed25519",
  "1.3.101.113": "ed448",
};

/** node-forge's reader; its typings lack the options object it takes (decodeBitStrings). */
const fromDer = forge.asn1.fromDer as unknown as (
  bytes: Forge.util.ByteStringBuffer,
  options: { readonly decodeBitStrings: boolean },
) => Forge.asn1.Asn1;

/**
 * The algorithm the issuer signed with: the outer signatureAlgorithm (RFC 5280 4.1.1.2). Node 20's
 * X509Certificate does not expose it, and node-forge's certificate reader knows RSA only, so the
 * structure alone is read. Undefined when it cannot be read.
 */
export function signatureOf(der: Uint8Array): SignatureFacts | undefined {
  try {
    const cert = fromDer(forge.util.createBuffer(Buffer.from(der).toString("binary")), {
      decodeBitStrings: false,
    });
    const algorithm = (cert.value as Forge.asn1.Asn1[])[1];
    const oid = (algorithm?.value as Forge.asn1.Asn1[] | undefined)?.[0];
    if (oid === undefined || typeof oid.value !== "string") return undefined;
    const text = forge.asn1.derToOid(forge.util.createBuffer(oid.value));
    return { oid: text, name: SIGNATURE_NAMES[text] ?? text };
  } catch {
    return undefined;
  }
}

/** A curve's size from its name: prime256v1, secp384r1, brainpoolP512r1, secp521r1... */
function curveBits(curve: string | undefined): number | undefined {
  const digits = curve?.match(/(\d{3})/)?.[1];
  return digits === undefined ? undefined : Number(digits);
}

/** The leaf's key type and size, as Node reads it; undefined when Node cannot say. */
export function keyOf(x509: X509Certificate): PublicKeyFacts | undefined {
  try {
    const key = x509.publicKey;
    const type = key.asymmetricKeyType ?? "unknown";
    const details = key.asymmetricKeyDetails ?? {};
    if (type === "ec") {
      return { type, bits: curveBits(details.namedCurve), curve: details.namedCurve };
    }
    return { type, bits: details.modulusLength };
  } catch {
    return undefined;
  }
}

/**
 * What is read from the DER itself: the signature's algorithm, the ARI CertID (RFC 9773;
 * undefined without an Authority Key Identifier), and the Certificate Transparency hashes of the
 * public key and the TBSCertificate (ctHashes.ts), left out when the DER cannot be walked.
 */
export function derFacts(
  der: Uint8Array,
): Pick<ServedCertificate, "signature" | "certId" | "pubkeySha256" | "tbsSha256"> {
  const id = certIdOf(der);
  return {
    signature: signatureOf(der),
    certId: id.ok ? id.certId : undefined,
    ...ctHashesOfDer(der),
  };
}

/** Whether the certificate names itself as issuer (and matches its own key identifier). */
export function selfIssued(x509: X509Certificate): boolean {
  return x509.checkIssued(x509);
}

/**
 * Whether the leaf's issuer is among the certificates the endpoint sent or the trust anchors.
 *
 * Node gives no list of what the server sent, but getPeerCertificate(true) is built from it:
 * Node links the certificates the server sent (SSL_get_peer_cert_chain) by issuer, then, while
 * the last one is not self-issued, adds its issuer from the client's own trust store (the
 * context's `ca`, or Node's roots plus NODE_EXTRA_CA_CERTS). That store holds trust anchors
 * only, so the leaf has an issuer in this chain exactly when the server sent it or it is a
 * trust anchor. A server that leaves out the intermediate leaves the leaf alone in it.
 *
 * Node links only an issuer OpenSSL's X509_check_issued accepts, which refuses one whose
 * keyUsage lacks keyCertSign: sent, but alone in the chain too. OpenSSL's own verdict (`code`,
 * the chain problem) then names another cause than a missing issuer, unless the leaf is also
 * out of date: its last error is then about dates, and the second opinion (trustAnchor.ts)
 * sees the leaf alone. Such a chain reads incomplete-chain: still a failed run.
 */
export function leafIssuerFound(
  peer: tls.DetailedPeerCertificate,
  code: string | undefined,
): boolean {
  if (code === undefined || !ISSUER_MISSING.has(code)) return true;
  const issuer = peer.issuerCertificate;
  if (issuer?.raw === undefined || issuer.fingerprint256 === peer.fingerprint256) return false;
  try {
    return new X509Certificate(peer.raw).checkIssued(new X509Certificate(issuer.raw));
  } catch {
    return false;
  }
}

/** OpenSSL's codes for a leaf whose issuer it could not find, sent or in its store. */
const ISSUER_MISSING: ReadonlySet<string> = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
]);
