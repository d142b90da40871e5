import type Forge from "node-forge";
import asn1 from "node-forge/lib/asn1.js";
import util from "node-forge/lib/util.js";

/**
 * The two parts of node-forge the probes read certificates with (DER structure, object ids),
 * loaded on their own: `import "node-forge"` loads every cipher, PKCS format and TLS of its 43
 * files (20-40 ms) before `certsched verify` can open its first connection, for the ASN.1
 * reader's 3. node-forge has no "exports" map, so its files are reachable by path;
 * each one adds its part to the same forge object and exports it, and
 * test/shared/adapters/probes/forgeAsn1.test.ts holds that these are the parts the index gives.
 */
export const forge: Pick<typeof Forge, "asn1" | "util"> = { asn1, util };
