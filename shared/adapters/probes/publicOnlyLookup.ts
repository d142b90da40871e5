import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { isPublicAddress, NOT_PUBLIC_CODE } from "../../core/verification/publicAddress.js";

/**
 * dns.lookup, refusing names that resolve to any address that is not public: the connection is
 * then never opened. The addresses checked are the ones the socket connects to (one lookup),
 * so a name cannot answer a public address to a check and a private one to the connection.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
    if (error) {
      callback(error, "", 0);
      return;
    }
    if (found.length === 0 || found.some((a) => !isPublicAddress(a.address))) {
      const refused = Object.assign(
        new Error(`${hostname} resolves to an address that is not public`),
        { code: NOT_PUBLIC_CODE },
      );
      callback(refused, "", 0);
      return;
    }
    if (options.all) {
      (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, found);
      return;
    }
    const first = found[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
};
