import { X509Certificate } from "node:crypto";
import type Forge from "node-forge";
import asn1 from "node-forge/lib/asn1.js";
import util from "node-forge/lib/util.js";
import { hostNamesOf, shown, thumbprintOf } from "./graphRows.js";

/**
 * The certificate an Application Gateway shows for one uploaded as PFX: Resource Graph gives no
 * expiry or thumbprint for it, only `publicCertData`, base64 of a PKCS#7 SignedData (certs-only,
 * RFC 2315 9.1) holding the public chain, or of one DER certificate as some tools write it.
 * Upstream data: bounded, every text escaped, and nothing malformed ever throws.
 *
 * The structure is walked with node-forge's ASN.1 reader alone, loaded by path: its PKCS#7 and
 * certificate readers know RSA keys only, and its index loads every cipher and format
 * (docs/cli.md, "Start-up"). Each certificate is then read by Node, whatever its key.
 */

/** Longest `publicCertData` read, in base64 characters (three RSA certificates: about 6,000). */
const MAX_BASE64 = 100_000;
/** Most certificates of one bag read; the rest are ignored. */
const MAX_CERTIFICATES = 20;
/** A certificate nests about 8 deep, the PKCS#7 around it 4 more. */
const MAX_DEPTH = 32;
/** id-signedData (RFC 2315 14). */
const SIGNED_DATA = "1.2.840.113549.1.7.2";

/** What a gateway certificate's public data says of it. */
export interface PublicCertificate {
  /** SHA-1 of the leaf's DER, 40 upper-case hex. */
  readonly thumbprint: string;
  readonly notBefore: Date;
  readonly expiresAt: Date;
  /** One line (`CN=…, O=…`), escaped and bounded; undefined when empty. */
  readonly issuer: string | undefined;
  readonly subject: string | undefined;
  /** The leaf's DNS names and CN, lower-case, escaped, at most MAX_HOST_NAMES. */
  readonly hostNames: readonly string[];
  readonly moreHostNames: number;
}

/** The leaf of `publicCertData` (PKCS#7 or DER); undefined when it cannot be read. */
export function certificateOfPublicData(value: string | undefined): PublicCertificate | undefined {
  try {
    const bytes = bytesOf(value);
    if (bytes === undefined) return undefined;
    const certificates = (signedDataCertificates(bytes) ?? [bytes]).map(
      (der) => new X509Certificate(der),
    );
    const leaf = leafOf(certificates);
    return leaf === undefined ? undefined : factsOf(leaf);
  } catch {
    // Node (and node-forge, re-encoding) refuse what they cannot read by throwing: unreadable.
    return undefined;
  }
}

function bytesOf(value: string | undefined): Buffer | undefined {
  if (value === undefined || value.length > MAX_BASE64) return undefined;
  const base64 = value.replace(/\s+/g, "");
  if (base64 === "" || base64.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) {
    return undefined;
  }
  return Buffer.from(base64, "base64");
}

/** node-forge's reader; its typings lack the options object it takes. */
const fromDer = asn1.fromDer as unknown as (
  bytes: Forge.util.ByteStringBuffer,
  options: { readonly decodeBitStrings: boolean; readonly maxDepth: number },
) => Forge.asn1.Asn1;

const childrenOf = (node: Forge.asn1.Asn1 | undefined): Forge.asn1.Asn1[] =>
  Array.isArray(node?.value) ? node.value : [];

const isContext0 = (node: Forge.asn1.Asn1 | undefined): boolean =>
  node?.tagClass === asn1.Class.CONTEXT_SPECIFIC && node.type === 0 && node.constructed;

/**
 * The DER of each certificate in a ContentInfo of SignedData: `[0] EXPLICIT SignedData`, whose
 * `certificates` is the `[0] IMPLICIT SET` after version, digestAlgorithms and contentInfo.
 * Undefined when the bytes are not a SignedData (a bare certificate, say).
 */
function signedDataCertificates(bytes: Buffer): Buffer[] | undefined {
  let info: Forge.asn1.Asn1;
  try {
    info = fromDer(util.createBuffer(bytes.toString("binary")), {
      decodeBitStrings: false,
      maxDepth: MAX_DEPTH,
    });
  } catch {
    return undefined;
  }
  const [type, content] = childrenOf(info);
  if (type?.type !== asn1.Type.OID || typeof type.value !== "string") return undefined;
  if (asn1.derToOid(util.createBuffer(type.value)) !== SIGNED_DATA || !isContext0(content)) {
    return undefined;
  }
  const certificates = childrenOf(childrenOf(content)[0]).find(isContext0);
  return childrenOf(certificates)
    .slice(0, MAX_CERTIFICATES)
    .map((c) => Buffer.from(asn1.toDer(c).getBytes(), "binary"));
}

/** The one that issued none of the others (a chain in any order); else the first. */
function leafOf(certificates: readonly X509Certificate[]): X509Certificate | undefined {
  const issuesAnother = (c: X509Certificate) =>
    certificates.some((other) => other !== c && other.checkIssued(c));
  return certificates.find((c) => !issuesAnother(c)) ?? certificates[0];
}

function factsOf(leaf: X509Certificate): PublicCertificate | undefined {
  const thumbprint = thumbprintOf(leaf.fingerprint);
  const notBefore = nodeDate(leaf.validFrom);
  const expiresAt = nodeDate(leaf.validTo);
  if (thumbprint === undefined || notBefore === undefined || expiresAt === undefined) {
    return undefined;
  }
  const cn = /^CN=(.*)$/m.exec(leaf.subject)?.[1];
  const names = hostNamesOf([...dnsNamesOf(leaf.subjectAltName), ...(cn ? [unescaped(cn)] : [])]);
  return {
    thumbprint,
    notBefore,
    expiresAt,
    issuer: shown(oneLine(leaf.issuer)),
    subject: shown(oneLine(leaf.subject)),
    hostNames: names.hostNames,
    moreHostNames: names.more,
  };
}

/** Node's `Jan  2 07:41:37 2027 GMT`; undefined when it is not a date. */
function nodeDate(text: string): Date | undefined {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** Node writes a name an attribute a line, escaped as RFC 4514 says; the TLS probe joins so too. */
const oneLine = (name: string): string => name.split("\n").join(", ");

/**
 * The DNS names of Node's `DNS:a.test, DNS:"a\u002cb", IP Address:…`: a value with a comma or a
 * quote comes as a JSON string, so entries never hold ", ".
 */
function dnsNamesOf(altNames: string | undefined): string[] {
  return (altNames ?? "").split(", ").flatMap((entry) => {
    if (!entry.startsWith("DNS:")) return [];
    const name = entry.slice(4);
    if (!name.startsWith('"')) return [name];
    try {
      const parsed: unknown = JSON.parse(name);
      return typeof parsed === "string" ? [parsed] : [];
    } catch {
      return [];
    }
  });
}

/** An RFC 4514 value as written: `\,` is `,`, `\0A` a byte (escapeControl shows it later). */
function unescaped(value: string): string {
  return value.replace(
    /((?:\\[0-9A-Fa-f]{2})+)|\\(.)/g,
    (_, hex: string | undefined, char: string) =>
      hex === undefined ? char : Buffer.from(hex.replace(/\\/g, ""), "hex").toString(),
  );
}
