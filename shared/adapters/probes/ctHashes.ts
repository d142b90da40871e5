import { createHash } from "node:crypto";
import type { ServedCertificate } from "../../core/ports/probes.js";

/**
 * The two hashes Certificate Transparency monitors give for an issuance (Cert Spotter's
 * `pubkey_sha256` and `tbs_sha256`), computed from a certificate's DER so that an issuance in the
 * logs can be matched with a certificate certsched read. A precertificate and its certificate
 * differ in serial-free ways (signature, the poison or SCT list extension), never in these two.
 *
 * Read with a small DER walker rather than a re-encoding parser: every element but the ones
 * removed is hashed exactly as the issuer wrote it.
 */

export type CtHashes = Pick<ServedCertificate, "pubkeySha256" | "tbsSha256">;

/** The embedded SCT list (RFC 6962 3.3): 1.3.6.1.4.1.11129.2.4.2, content octets of the OID. */
const SCT_LIST_OID = Buffer.from([0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79, 0x02, 0x04, 0x02]);
/** The precertificate poison (RFC 6962 3.1): 1.3.6.1.4.1.11129.2.4.3. */
const POISON_OID = Buffer.from([0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79, 0x02, 0x04, 0x03]);

const SEQUENCE = 0x30;
const OID = 0x06;
/** TBSCertificate's `extensions [3] EXPLICIT Extensions OPTIONAL` (RFC 5280 4.1). */
const EXTENSIONS = 0xa3;
/** TBSCertificate's `version [0] EXPLICIT Version DEFAULT v1`. */
const VERSION = 0xa0;

/** One DER element: its tag byte, where it starts, where its content starts, where it ends. */
interface Element {
  readonly tag: number;
  readonly start: number;
  readonly content: number;
  readonly end: number;
}

/** The element at `at`, within `limit`; undefined for anything DER does not allow or that overruns. */
function elementAt(der: Uint8Array, at: number, limit: number): Element | undefined {
  if (at + 2 > limit) return undefined;
  const tag = der[at] as number;
  // Certificates use single-byte tags only; a high tag number (low bits 11111) is not one of theirs.
  if ((tag & 0x1f) === 0x1f) return undefined;
  const first = der[at + 1] as number;
  let length = first;
  let content = at + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    // 0x80 is BER's indefinite length; more than 4 bytes is no certificate.
    if (count === 0 || count > 4 || content + count > limit) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[content + i] as number);
    content += count;
  }
  const end = content + length;
  return end > limit ? undefined : { tag, start: at, content, end };
}

/** The elements inside a constructed element, in order; undefined when they do not fill it exactly. */
function childrenOf(der: Uint8Array, parent: Element): Element[] | undefined {
  const children: Element[] = [];
  for (let at = parent.content; at < parent.end; ) {
    const child = elementAt(der, at, parent.end);
    if (child === undefined) return undefined;
    children.push(child);
    at = child.end;
  }
  return children;
}

/** A DER header (tag and definite length, shortest form) for `length` content bytes. */
function header(tag: number, length: number): Buffer {
  if (length < 0x80) return Buffer.from([tag, length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
}

const wrap = (tag: number, parts: readonly Uint8Array[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([header(tag, body.length), body]);
};

/** Whether an Extension (SEQUENCE { extnID, critical, extnValue }) is the SCT list or the poison. */
function isCtExtension(der: Uint8Array, extension: Element): boolean {
  const id =
    extension.tag === SEQUENCE ? elementAt(der, extension.content, extension.end) : undefined;
  if (id?.tag !== OID) return false;
  const oid = der.subarray(id.content, id.end);
  return SCT_LIST_OID.equals(oid) || POISON_OID.equals(oid);
}

/**
 * The `[3]` element without the SCT list and poison extensions, re-encoded; `[]` when none
 * remains. RFC 6962 3.2 hashes "the DER-encoded TBSCertificate (see [RFC5280])" of the
 * precertificate without its poison, and RFC 5280 4.1 allows no empty Extensions (SEQUENCE SIZE
 * (1..MAX)) in that OPTIONAL field: with nothing left, the field is left out, not sent empty
 * (as Firefox's CT code rebuilds it). Undefined when the field is not a list of extensions.
 */
function extensionsWithoutCt(der: Uint8Array, field: Element): Uint8Array[] | undefined {
  const inner = childrenOf(der, field);
  const list = inner?.length === 1 ? inner[0] : undefined;
  if (list?.tag !== SEQUENCE) return undefined;
  const extensions = childrenOf(der, list);
  if (extensions === undefined) return undefined;
  const kept = extensions.filter((e) => !isCtExtension(der, e));
  if (kept.length === extensions.length) return [der.subarray(field.start, field.end)];
  if (kept.length === 0) return [];
  const bytes = kept.map((e) => der.subarray(e.start, e.end));
  return [wrap(EXTENSIONS, [wrap(SEQUENCE, bytes)])];
}

/** The certificate's TBSCertificate element and its fields; undefined when it is not one. */
function tbsOf(der: Uint8Array): { tbs: Element; fields: Element[] } | undefined {
  const certificate = elementAt(der, 0, der.length);
  if (certificate?.tag !== SEQUENCE || certificate.end !== der.length) return undefined;
  const tbs = elementAt(der, certificate.content, certificate.end);
  if (tbs?.tag !== SEQUENCE) return undefined;
  const fields = childrenOf(der, tbs);
  return fields === undefined ? undefined : { tbs, fields };
}

/**
 * The TBSCertificate as RFC 6962 3.2 hashes it: without the embedded SCT list (a certificate) or
 * the poison (a precertificate), the lengths around them re-encoded. Undefined for DER it cannot
 * walk.
 */
export function ctTbs(der: Uint8Array): Uint8Array | undefined {
  const read = tbsOf(der);
  if (read === undefined) return undefined;
  const parts: Uint8Array[] = [];
  for (const field of read.fields) {
    if (field.tag !== EXTENSIONS) {
      parts.push(der.subarray(field.start, field.end));
      continue;
    }
    const kept = extensionsWithoutCt(der, field);
    if (kept === undefined) return undefined;
    parts.push(...kept);
  }
  const unchanged = parts.reduce((n, p) => n + p.length, 0) === read.tbs.end - read.tbs.content;
  return unchanged ? der.subarray(read.tbs.start, read.tbs.end) : wrap(SEQUENCE, parts);
}

/**
 * The SubjectPublicKeyInfo as the certificate holds it (RFC 5280 4.1: the seventh field, or the
 * sixth without an explicit version): the bytes CT's pubkey hash is taken over. For the keys
 * Node reads this is what `publicKey.export({ type: "spki", format: "der" })` gives.
 */
export function spkiOf(der: Uint8Array): Uint8Array | undefined {
  const read = tbsOf(der);
  if (read === undefined) return undefined;
  const index = read.fields[0]?.tag === VERSION ? 6 : 5;
  const spki = read.fields[index];
  return spki?.tag === SEQUENCE ? der.subarray(spki.start, spki.end) : undefined;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Both hashes, 64 lower-case hex each; a hash the DER does not allow is left out. Never throws. */
export function ctHashesOfDer(der: Uint8Array): CtHashes {
  try {
    const spki = spkiOf(der);
    const tbs = ctTbs(der);
    return {
      ...(spki === undefined ? {} : { pubkeySha256: sha256(spki) }),
      ...(tbs === undefined ? {} : { tbsSha256: sha256(tbs) }),
    };
  } catch {
    return {};
  }
}
