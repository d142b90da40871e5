import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  dateOf,
  hostNamesOf,
  shown,
  thumbprintOf,
  vaultItemId,
} from "../../../../shared/adapters/estate/graphRows.js";
import { MAX_ESTATE_TEXT, MAX_HOST_NAMES } from "../../../../shared/core/estate/estate.js";
import { propertyRuns } from "../../../support/fastCheck.js";

describe("Resource Graph's values, made into the estate's", () => {
  it("a thumbprint in any case, with spaces or colons, reads as 40 upper hex (property)", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9A-F]{40}$/),
        fc.constantFrom("", " ", ":"),
        fc.boolean(),
        (hex, sep, lower) => {
          const written = (hex.match(/../g) ?? []).join(sep);
          expect(thumbprintOf(lower ? written.toLowerCase() : written)).toBe(hex);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it("a thumbprint that is not 40 hex digits reads as none", () => {
    for (const bad of ["", "AB", "G".repeat(40), "A".repeat(41), "A".repeat(64)]) {
      expect(thumbprintOf(bad)).toBeUndefined();
    }
  });

  it("dates in the forms Azure has used; a zone-less date-time is UTC; nonsense is none", () => {
    const at = new Date("2027-01-02T03:04:05Z");
    expect(dateOf("2027-01-02T03:04:05")).toEqual(at);
    expect(dateOf("2027-01-02T03:04:05Z")).toEqual(at);
    expect(dateOf("2027-01-02T03:04:05+00:00")).toEqual(at);
    expect(dateOf("2027-01-02T04:04:05.000+01:00")).toEqual(at);
    expect(dateOf("Sat, 02 Jan 2027 03:04:05 GMT")).toEqual(at);
    for (const bad of ["", "soon", "2027-13-45T99:99:99", "9".repeat(30)])
      expect(dateOf(bad)).toBeUndefined();
  });

  it("text is escaped and bounded; host names lower-case, deduplicated, bounded and counted", () => {
    expect(shown("a\u0000b")).toBe("a\\u{00}b");
    expect(shown("x".repeat(MAX_ESTATE_TEXT * 2))).toHaveLength(MAX_ESTATE_TEXT);
    const names = Array.from({ length: MAX_HOST_NAMES + 7 }, (_, i) => `H${i}.test`);
    const kept = hostNamesOf([...names, "h0.test", 42, null]);
    expect(kept.hostNames).toHaveLength(MAX_HOST_NAMES);
    expect(kept.hostNames[0]).toBe("h0.test");
    expect(kept.more).toBe(7);
  });

  it("an App Service certificate's vault source: the secret's id, lower-case", () => {
    const vault =
      "/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/Contoso-KV";
    expect(vaultItemId(vault, "WWW")).toBe("https://contoso-kv.vault.azure.net/secrets/www");
    expect(vaultItemId(vault, undefined)).toBeUndefined();
    expect(vaultItemId("/not/a/vault", "www")).toBeUndefined();
  });
});
