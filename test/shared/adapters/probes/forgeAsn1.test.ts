import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { forge } from "../../../../shared/adapters/probes/forgeAsn1.js";

const full = createRequire(import.meta.url)("node-forge") as typeof import("node-forge");

describe("forge: node-forge's ASN.1 reader and buffers without its index", () => {
  it("gives the very asn1 and util node-forge's index exports (an upgrade that moves a file fails here)", () => {
    expect(forge.asn1).toBe(full.asn1);
    expect(forge.util).toBe(full.util);
  });

  it("reads an object id from DER, as the probes read a signature algorithm", () => {
    // 1.2.840.113549.1.1.11 (sha256WithRSAEncryption), DER-encoded OBJECT IDENTIFIER.
    const der = Buffer.from("06092a864886f70d01010b", "hex").toString("binary");
    const node = forge.asn1.fromDer(forge.util.createBuffer(der));
    expect(forge.asn1.derToOid(forge.util.createBuffer(node.value as string))).toBe(
      "1.2.840.113549.1.1.11",
    );
  });
});
