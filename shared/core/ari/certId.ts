import { children, oidText, readTlv, type Tlv } from "./der.js";

/**
 * The ARI CertID (RFC 9773, section 4.1): base64url of the Authority Key Identifier's
 * keyIdentifier, a dot, base64url of the serial number's DER value bytes (its content octets,
 * without tag and length: a leading 0x00 that keeps the number positive stays), both unpadded.
 */
export function certId(aki: Uint8Array, serial: Uint8Array): string {
  if (aki.length === 0) throw new RangeError("An ARI CertID needs a non-empty keyIdentifier");
  if (serial.length === 0) throw new RangeError("An ARI CertID needs a non-empty serial number");
  return `${Buffer.from(aki).toString("base64url")}.${Buffer.from(serial).toString("base64url")}`;
}

/** Why a certificate has no CertID: not a certificate we can read, or no keyIdentifier in it. */
export type NoCertId = "unreadable" | "no-authority-key-id";

/** A certificate's CertID with the two parts it is made of, or why there is none. */
export type CertIdResult =
  | {
      readonly ok: true;
      readonly certId: string;
      /** The Authority Key Identifier's keyIdentifier, as upper-case hex pairs joined by ":". */
      readonly authorityKeyId: string;
      /** The serial number's value bytes as hex (a leading 00 kept), as openssl prints them. */
      readonly serial: string;
    }
  | { readonly ok: false; readonly reason: NoCertId };

const AUTHORITY_KEY_IDENTIFIER = "2.5.29.35";
const SEQUENCE = 0x30;
const INTEGER = 0x02;
const OCTET_STRING = 0x04;
const OID = 0x06;
const VERSION = 0xa0; // [0] EXPLICIT
const EXTENSIONS = 0xa3; // [3] EXPLICIT
const KEY_IDENTIFIER = 0x80; // [0] IMPLICIT OCTET STRING

/** The DER of the first certificate in PEM text, or the bytes as they are if not PEM. */
export function certificateDer(certificate: string | Uint8Array): Uint8Array | undefined {
  if (typeof certificate !== "string") return certificate;
  const body = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(
    certificate,
  )?.[1];
  return body === undefined ? undefined : Buffer.from(body.replace(/\s+/g, ""), "base64");
}

/** The CertID of a certificate (PEM text or DER bytes), read from its own fields. */
export function certIdOf(certificate: string | Uint8Array): CertIdResult {
  const der = certificateDer(certificate);
  const fields = der === undefined ? undefined : readFields(der);
  if (!fields || !der) return { ok: false, reason: "unreadable" };
  if (!fields.aki) return { ok: false, reason: "no-authority-key-id" };
  const aki = der.subarray(fields.aki.start, fields.aki.end);
  const serial = der.subarray(fields.serial.start, fields.serial.end);
  if (aki.length === 0 || serial.length === 0) return { ok: false, reason: "unreadable" };
  return {
    ok: true,
    certId: certId(aki, serial),
    authorityKeyId: (Buffer.from(aki).toString("hex").toUpperCase().match(/../g) ?? []).join(":"),
    serial: Buffer.from(serial).toString("hex").toUpperCase(),
  };
}

/** The serial and the keyIdentifier (if any) of a DER certificate; undefined if malformed. */
function readFields(der: Uint8Array): { serial: Tlv; aki: Tlv | undefined } | undefined {
  const cert = readTlv(der, 0, der.length);
  if (cert?.tag !== SEQUENCE) return undefined;
  const tbs = readTlv(der, cert.start, cert.end);
  if (tbs?.tag !== SEQUENCE) return undefined;
  const fields = children(der, tbs);
  if (!fields) return undefined;
  const rest = fields[0]?.tag === VERSION ? fields.slice(1) : fields;
  const serial = rest[0];
  if (serial?.tag !== INTEGER) return undefined;
  const wrapper = rest.find((f) => f.tag === EXTENSIONS);
  if (!wrapper) return { serial, aki: undefined };
  const list = readTlv(der, wrapper.start, wrapper.end);
  const extensions = list?.tag === SEQUENCE ? children(der, list) : undefined;
  if (!extensions) return undefined;
  for (const extension of extensions) {
    const parts = extension.tag === SEQUENCE ? children(der, extension) : undefined;
    const [oid] = parts ?? [];
    const value = parts?.[parts.length - 1];
    if (oid?.tag !== OID || value?.tag !== OCTET_STRING) return undefined;
    if (oidText(der, oid) !== AUTHORITY_KEY_IDENTIFIER) continue;
    const aki = readTlv(der, value.start, value.end);
    const items = aki?.tag === SEQUENCE ? children(der, aki) : undefined;
    if (!items) return undefined;
    return { serial, aki: items.find((item) => item.tag === KEY_IDENTIFIER) };
  }
  return { serial, aki: undefined };
}
