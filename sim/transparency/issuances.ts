import { createHash, X509Certificate } from "node:crypto";

/**
 * Issuances as the simulator's Cert Spotter keeps and serves them, and the hashes that tie an
 * issuance to a certificate, computed here on their own (a small DER walker), not with the code
 * certsched reads certificates with: a test that compares the two can fail.
 */

/** The issuer object of an issuance (`expand=issuer`), in the API's field names. */
export interface CertSpotterIssuer {
  readonly friendly_name: string;
  readonly website: string | null;
  readonly caa_domains: readonly string[];
  readonly operator: { readonly name: string; readonly website: string } | null;
  readonly pubkey_sha256: string;
  /** The issuer's distinguished name as text, e.g. `C=US, O=Let's Encrypt, CN=R11`. */
  readonly name: string;
}

/** What a test adds: an issuance without its id (the simulator numbers them as it "discovers" them). */
export interface IssuanceSeed {
  /** 64 lower-case hex each. */
  readonly tbsSha256: string;
  readonly certSha256: string;
  readonly pubkeySha256: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** From the subject CN and the DNS SANs, lower-case; wildcards as `*.example.com`. */
  readonly dnsNames: readonly string[];
  readonly issuer: CertSpotterIssuer;
  /** Set when the certificate is revoked. */
  readonly revocation?: { readonly time: Date; readonly reason: number } | undefined;
  readonly problemReporting?: string | undefined;
  /** The certificate's (or precertificate's) DER: `cert_der`. */
  readonly certDer?: Buffer | undefined;
}

/** An issuance the simulator holds: a seed with its id (increasing decimal strings). */
export interface StoredIssuance extends IssuanceSeed {
  readonly id: string;
}

/** The fields `expand` may add; the others are always present. */
export const EXPANDABLE = [
  "dns_names",
  "issuer",
  "revocation",
  "problem_reporting",
  "cert_der",
] as const;
export type Expandable = (typeof EXPANDABLE)[number];

/** Cert Spotter's time format: RFC 3339 in UTC, whole seconds, `Z`. */
export function certSpotterTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The JSON object the API answers for an issuance, with the fields `expand` asked for. */
export function issuanceJson(
  issuance: StoredIssuance,
  expand: ReadonlySet<string>,
  checkedAt: Date,
): Record<string, unknown> {
  const json: Record<string, unknown> = {
    id: issuance.id,
    tbs_sha256: issuance.tbsSha256,
    cert_sha256: issuance.certSha256,
    pubkey_sha256: issuance.pubkeySha256,
    not_before: certSpotterTime(issuance.notBefore),
    not_after: certSpotterTime(issuance.notAfter),
    revoked: issuance.revocation !== undefined,
  };
  if (expand.has("dns_names")) json.dns_names = [...issuance.dnsNames];
  // A sub-field (`issuer.operator`) makes the object appear too; here with all its fields.
  if ([...expand].some((e) => e === "issuer" || e.startsWith("issuer."))) {
    json.issuer = issuance.issuer;
  }
  if (expand.has("revocation")) {
    const r = issuance.revocation;
    json.revocation = {
      time: r === undefined ? null : certSpotterTime(r.time),
      reason: r === undefined ? null : r.reason,
      checked_at: certSpotterTime(checkedAt),
    };
  }
  if (expand.has("problem_reporting")) json.problem_reporting = issuance.problemReporting ?? "";
  if (expand.has("cert_der") && issuance.certDer !== undefined) {
    json.cert_der = issuance.certDer.toString("base64");
  }
  return json;
}

// ---- Hashes of a certificate -------------------------------------------------------------

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** DER of the OIDs RFC 6962 strips from the TBSCertificate (06 0a 2b 06 01 04 01 d6 79 02 04 0x). */
export const SCT_LIST_OID_DER = Buffer.from("060a2b06010401d679020402", "hex");
export const POISON_OID_DER = Buffer.from("060a2b06010401d679020403", "hex");

/** One DER element: its tag, where it starts, where its content starts, where it ends. */
interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

function readTlv(der: Uint8Array, start: number, limit: number): Tlv {
  const tag = der[start];
  const first = der[start + 1];
  if (tag === undefined || first === undefined || (tag & 0x1f) === 0x1f) {
    throw new Error("not a DER certificate (truncated or a multi-byte tag)");
  }
  let length = first;
  let contentStart = start + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new Error("not a DER certificate (length)");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[contentStart + i] ?? 0);
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > limit) throw new Error("not a DER certificate (element runs past its parent)");
  return { tag, start, contentStart, end };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.contentStart; at < parent.end; ) {
    const child = readTlv(der, at, parent.end);
    out.push(child);
    at = child.end;
  }
  return out;
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function element(tag: number, content: readonly Uint8Array[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), encodeLength(body.length), body]);
}

const slice = (der: Uint8Array, t: Tlv): Buffer => Buffer.from(der.subarray(t.start, t.end));

/** The certificate's parts: the TBSCertificate, its fields, and the rest of the certificate. */
function certificateParts(der: Uint8Array) {
  const cert = readTlv(der, 0, der.length);
  const [tbs, ...rest] = children(der, cert);
  if (cert.tag !== 0x30 || tbs?.tag !== 0x30 || rest.length !== 2) {
    throw new Error("not a DER certificate (expected a SEQUENCE of three)");
  }
  return { tbs, fields: children(der, tbs), rest };
}

/**
 * The TBSCertificate with the extensions whose OID is one of `drop` removed, and `add` (whole
 * Extension elements) appended; the [3] field is left out when no extension remains.
 */
function rewriteTbs(der: Uint8Array, drop: readonly Buffer[], add: readonly Buffer[] = []) {
  const { fields } = certificateParts(der);
  const out: Buffer[] = [];
  let sawExtensions = false;
  for (const field of fields) {
    if (field.tag !== 0xa3) {
      out.push(slice(der, field));
      continue;
    }
    sawExtensions = true;
    const [list] = children(der, field);
    if (list === undefined) continue;
    const kept = children(der, list)
      .filter((ext) => {
        const [oid] = children(der, ext);
        return oid === undefined || !drop.some((d) => d.equals(slice(der, oid)));
      })
      .map((ext) => slice(der, ext));
    kept.push(...add);
    if (kept.length > 0) out.push(element(0xa3, [element(0x30, kept)]));
  }
  if (!sawExtensions && add.length > 0) out.push(element(0xa3, [element(0x30, [...add])]));
  return element(0x30, out);
}

/** DER of a PEM certificate (the first one), or of an X509Certificate. */
export function certificateDer(certificate: string | X509Certificate | Buffer): Buffer {
  if (Buffer.isBuffer(certificate)) return certificate;
  return (typeof certificate === "string" ? new X509Certificate(certificate) : certificate).raw;
}

/**
 * SHA-256 of the TBSCertificate as RFC 6962 section 3.2 defines it: without the embedded SCT
 * list (1.3.6.1.4.1.11129.2.4.2) and the precertificate poison (1.3.6.1.4.1.11129.2.4.3), so a
 * certificate and its precertificate have the same one.
 */
export function tbsSha256(certificate: string | X509Certificate | Buffer): string {
  return sha256(rewriteTbs(certificateDer(certificate), [SCT_LIST_OID_DER, POISON_OID_DER]));
}

/** SHA-256 of the DER SubjectPublicKeyInfo. */
export function pubkeySha256(certificate: string | X509Certificate | Buffer): string {
  const x509 =
    certificate instanceof X509Certificate ? certificate : new X509Certificate(certificate);
  return sha256(x509.publicKey.export({ type: "spki", format: "der" }));
}

/**
 * The precertificate of a certificate, as a CA logs it before issuing: the same TBSCertificate
 * with the SCT list taken out and the poison extension (critical, NULL) in. Its signature is
 * the certificate's, so it does not verify: nothing here, nor a monitor's hash, checks it.
 */
export function precertificateDer(certificate: string | X509Certificate | Buffer): Buffer {
  const der = certificateDer(certificate);
  const { rest } = certificateParts(der);
  const poison = element(0x30, [
    POISON_OID_DER,
    Buffer.from([0x01, 0x01, 0xff]),
    element(0x04, [Buffer.from([0x05, 0x00])]),
  ]);
  const tbs = rewriteTbs(der, [SCT_LIST_OID_DER, POISON_OID_DER], [poison]);
  return element(0x30, [tbs, ...rest.map((t) => slice(der, t))]);
}

/** Names of a certificate as Cert Spotter lists them: the subject CN, then the DNS SANs, lower-case. */
function dnsNamesOf(x509: X509Certificate): string[] {
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(x509.subject)?.[1];
  const sans = (x509.subjectAltName ?? "")
    .split(", ")
    .filter((s) => s.startsWith("DNS:"))
    .map((s) => s.slice(4));
  const names = [...(cn === undefined ? [] : [cn]), ...sans].map((n) => n.toLowerCase());
  return [...new Set(names)];
}

/** The issuer's DN as Cert Spotter writes it (`C=US, O=…, CN=…`). */
function issuerName(x509: X509Certificate): string {
  return x509.issuer.split("\n").filter(Boolean).join(", ");
}

/**
 * An issuance for a certificate (PEM, X509Certificate or DER): its hashes computed here, its
 * names, dates and DER; the issuer from `issuer` (default: its friendly name is the issuer's
 * O, else CN).
 */
export function issuanceFromCertificate(
  certificate: string | X509Certificate | Buffer,
  overrides: Partial<IssuanceSeed> = {},
): IssuanceSeed {
  const der = certificateDer(certificate);
  const x509 = new X509Certificate(der);
  const field = (name: string) => new RegExp(`(?:^|\\n)${name}=([^\\n]*)`).exec(x509.issuer)?.[1];
  return {
    tbsSha256: tbsSha256(der),
    certSha256: sha256(der),
    pubkeySha256: pubkeySha256(x509),
    notBefore: new Date(x509.validFrom),
    notAfter: new Date(x509.validTo),
    dnsNames: dnsNamesOf(x509),
    issuer: {
      friendly_name: field("O") ?? field("CN") ?? "Unknown",
      website: null,
      caa_domains: [],
      operator: null,
      pubkey_sha256: "0".repeat(64),
      name: issuerName(x509),
    },
    certDer: der,
    ...overrides,
  };
}

/**
 * The same issuance as Cert Spotter shows it while only the precertificate is logged: the same
 * tbs_sha256 and pubkey_sha256, the precertificate's cert_sha256 and DER.
 */
export function asPrecertificate(issuance: IssuanceSeed): IssuanceSeed {
  if (issuance.certDer === undefined) {
    // No DER to rebuild: a different certificate hash is all that can differ.
    return {
      ...issuance,
      certSha256: sha256(Buffer.from(`precertificate ${issuance.certSha256}`)),
    };
  }
  const der = precertificateDer(issuance.certDer);
  return { ...issuance, certSha256: sha256(der), certDer: der };
}
