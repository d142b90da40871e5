import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type IssuanceQuery,
  matches,
  selectPage,
} from "../../../sim/transparency/issuanceQuery.js";
import type { StoredIssuance } from "../../../sim/transparency/issuances.js";
import { propertyRuns } from "../../support/fastCheck.js";

const NOW = new Date("2026-06-01T12:00:00Z");
const LABELS = [
  "example.com",
  "www.example.com",
  "a.b.example.com",
  "*.example.com",
  "example.org",
  "xexample.com",
];

function stored(index: number, names: string[], expired: boolean): StoredIssuance {
  return {
    id: String(9_000_000_000 + index),
    tbsSha256: "a".repeat(64),
    certSha256: "b".repeat(64),
    pubkeySha256: "c".repeat(64),
    notBefore: new Date(NOW.getTime() - 86_400_000),
    notAfter: new Date(NOW.getTime() + (expired ? -1 : 1) * 86_400_000),
    dnsNames: names,
    issuer: {
      friendly_name: "CA",
      website: null,
      caa_domains: [],
      operator: null,
      pubkey_sha256: "d".repeat(64),
      name: "CN=CA",
    },
  };
}

const arbitraryStore = fc
  .array(fc.tuple(fc.subarray(LABELS, { minLength: 1 }), fc.boolean()), { maxLength: 30 })
  .map((list) => list.map(([names, expired], i) => stored(i, names, expired)));

const arbitraryQuery = fc.record({
  domains: fc.subarray(["example.com", "www.example.com", "example.org"], { minLength: 1 }),
  includeSubdomains: fc.boolean(),
  matchWildcards: fc.boolean(),
  expired: fc.boolean(),
});

describe("the simulated Cert Spotter's selection", () => {
  it("pages by after until [] give every matching issuance exactly once, in discovery order, whatever the page size", () => {
    fc.assert(
      fc.property(
        arbitraryStore,
        arbitraryQuery,
        fc.integer({ min: 1, max: 7 }),
        (store, q, size) => {
          const base: IssuanceQuery = { ...q, after: undefined, expand: new Set() };
          const seen: string[] = [];
          let after: bigint | undefined;
          for (let guard = 0; guard <= store.length + 1; guard++) {
            const page = selectPage(store, { ...base, after }, NOW, size);
            expect(page.length).toBeLessThanOrEqual(size);
            if (page.length === 0) break;
            seen.push(...page.map((i) => i.id));
            after = BigInt(page.at(-1)?.id ?? "0");
          }
          const expected = store
            .filter((i) => (q.expired || i.notAfter > NOW) && matches(base, i.dnsNames))
            .map((i) => i.id);
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: propertyRuns(200) },
    );
  });

  it("matches a name, its subdomains only when asked, a one-label wildcard only when asked", () => {
    const q = (over: Partial<IssuanceQuery>): IssuanceQuery => ({
      domains: ["www.example.com"],
      includeSubdomains: false,
      matchWildcards: false,
      after: undefined,
      expand: new Set(),
      expired: false,
      ...over,
    });
    expect(matches(q({}), ["WWW.EXAMPLE.COM"])).toBe(true);
    expect(matches(q({}), ["a.www.example.com"])).toBe(false);
    expect(matches(q({ includeSubdomains: true }), ["a.b.www.example.com"])).toBe(true);
    expect(matches(q({ includeSubdomains: true }), ["xwww.example.com"])).toBe(false);
    expect(matches(q({}), ["*.example.com"])).toBe(false);
    expect(matches(q({ matchWildcards: true }), ["*.example.com"])).toBe(true);
    expect(matches(q({ matchWildcards: true }), ["*.com"])).toBe(false);
  });
});
