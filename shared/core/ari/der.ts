/**
 * Just enough DER (X.690) to find two fields of an X.509 certificate: the serial number's value
 * bytes and the Authority Key Identifier's keyIdentifier. A certificate served to us is
 * untrusted input: every length is checked against what is left, and anything malformed is
 * `undefined`, never a throw or a read past the end.
 */

/** One TLV: its tag byte, where its value starts and ends (`end` exclusive) in the buffer. */
export interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

/** Reads the TLV at `offset` within `[offset, limit)`; undefined if it does not fit. */
export function readTlv(der: Uint8Array, offset: number, limit: number): Tlv | undefined {
  if (offset + 2 > limit) return undefined;
  const tag = der[offset] ?? 0;
  // High-tag-number form (low five bits all set) never occurs in the fields read here.
  if ((tag & 0x1f) === 0x1f) return undefined;
  const first = der[offset + 1] ?? 0;
  let length = first;
  let start = offset + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    // Indefinite length (0x80) is BER, not DER; four length bytes cover any certificate.
    if (count === 0 || count > 4 || start + count > limit) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[start + i] ?? 0);
    start += count;
  }
  const end = start + length;
  if (end > limit) return undefined;
  return { tag, start, end };
}

/** The TLVs directly inside a constructed value, in order; undefined if one does not fit. */
export function children(der: Uint8Array, parent: Tlv): Tlv[] | undefined {
  const out: Tlv[] = [];
  let offset = parent.start;
  while (offset < parent.end) {
    const tlv = readTlv(der, offset, parent.end);
    if (!tlv) return undefined;
    out.push(tlv);
    offset = tlv.end;
  }
  return out;
}

/** The dotted form of an OBJECT IDENTIFIER's value bytes. */
export function oidText(der: Uint8Array, tlv: Tlv): string {
  const arcs: number[] = [];
  let value = 0;
  for (let i = tlv.start; i < tlv.end; i++) {
    const byte = der[i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      if (arcs.length === 0)
        arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else arcs.push(value);
      value = 0;
    }
  }
  return arcs.join(".");
}
