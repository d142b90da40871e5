import { describe, expect, it } from "vitest";
import { children, oidText, readTlv } from "../../../../shared/core/ari/der.js";

/** The DER reader behind the ARI CertID: bounds first, since a served certificate is untrusted. */

const bytes = (hex: string) => Buffer.from(hex.replace(/\s+/g, ""), "hex");

describe("readTlv", () => {
  it("reads short and long lengths", () => {
    expect(readTlv(bytes("0403 aabbcc"), 0, 5)).toEqual({ tag: 0x04, start: 2, end: 5 });
    const long = Buffer.concat([bytes("04 81 80"), Buffer.alloc(0x80)]);
    expect(readTlv(long, 0, long.length)).toEqual({ tag: 0x04, start: 3, end: 131 });
  });

  it("a value one byte longer than what is left does not fit", () => {
    expect(readTlv(bytes("0403 aabb"), 0, 4)).toBeUndefined();
    expect(readTlv(bytes("0402 aabb"), 0, 4)).toEqual({ tag: 4, start: 2, end: 4 });
  });

  it("refuses BER's indefinite length, five length bytes and high tag numbers", () => {
    expect(readTlv(bytes("3080 0000"), 0, 4)).toBeUndefined();
    expect(readTlv(bytes("3085 0000000001 00"), 0, 8)).toBeUndefined();
    expect(readTlv(bytes("1f01 00"), 0, 3)).toBeUndefined();
    expect(readTlv(bytes("04"), 0, 1)).toBeUndefined();
  });
});

describe("children and oidText", () => {
  it("lists the TLVs inside a SEQUENCE, or nothing when one overruns it", () => {
    const seq = bytes("3006 0201 05 0401 ff");
    const outer = readTlv(seq, 0, seq.length);
    expect(outer && children(seq, outer)).toEqual([
      { tag: 2, start: 4, end: 5 },
      { tag: 4, start: 7, end: 8 },
    ]);
    const bad = bytes("3005 0201 05 0402 ff");
    const badOuter = readTlv(bad, 0, bad.length);
    expect(badOuter && children(bad, badOuter)).toBeUndefined();
  });

  it("reads the Authority Key Identifier's OID and a large arc", () => {
    const aki = bytes("0603 551d23");
    expect(oidText(aki, { tag: 6, start: 2, end: 5 })).toBe("2.5.29.35");
    const ecPublicKey = bytes("2a8648ce3d0201");
    expect(oidText(ecPublicKey, { tag: 6, start: 0, end: 7 })).toBe("1.2.840.10045.2.1");
  });
});
