/**
 * Types of the node-forge files shared/adapters/probes/forgeAsn1.ts loads by path
 * (@types/node-forge describes the index only): each is the CommonJS module.exports of the
 * part of the one forge object it fills.
 */
declare module "node-forge/lib/asn1.js" {
  const asn1: typeof import("node-forge").asn1;
  export default asn1;
}
declare module "node-forge/lib/util.js" {
  const util: typeof import("node-forge").util;
  export default util;
}
