import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  defaultVaultUrl,
  isKeyVaultName,
} from "../../../../shared/core/verification/keyVaultName.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const VAULT = "https://vault.azure.net";

// The vault name comes from the service's records and becomes part of the host the vault token
// is sent to: whatever the check lets through must leave the host exactly {name}.vault.azure.net.
describe("vault names", () => {
  it("a name that passes the check is exactly one label before vault.azure.net, for any string", () => {
    const anyText = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.string({ unit: fc.constantFrom(..."aZ09-./:@#?%_ \\\n[]") }),
      // Mostly names that pass, so the property is about them, not about rejections.
      fc.string({ unit: fc.constantFrom(..."aZ09-"), minLength: 3, maxLength: 24 }),
    );
    let accepted = 0;
    fc.assert(
      fc.property(anyText, (name) => {
        if (!isKeyVaultName(name)) return;
        accepted += 1;
        const url = new URL(defaultVaultUrl(name, VAULT));
        expect(url.hostname).toBe(`${name.toLowerCase()}.vault.azure.net`);
        expect(url.pathname).toBe("/");
        expect(url.port + url.username + url.password + url.search + url.hash).toBe("");
      }),
      { numRuns: propertyRuns(2_000) },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it("accepts every name Azure's rule allows", () => {
    const letter = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    const alnum = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789");
    const middle = fc
      .array(fc.oneof(alnum, fc.constant("-")), { minLength: 1, maxLength: 22 })
      .map((chars) => chars.join(""))
      .filter((text) => !text.includes("--"));
    fc.assert(
      fc.property(letter, middle, alnum, (first, rest, last) => {
        const name = `${first}${rest}${last}`;
        if (name.includes("--")) return;
        expect(isKeyVaultName(name)).toBe(true);
      }),
      { numRuns: propertyRuns(2_000) },
    );
  });

  it.each([
    ["abc", true],
    ["a".repeat(24), true],
    ["contoso-kv", true],
    ["Contoso-KV-01", true],
    ["ab", false],
    ["a".repeat(25), false],
    ["1abc", false],
    ["-abc", false],
    ["abc-", false],
    ["ab--c", false],
    ["ab_c", false],
    ["contoso.kv", false],
    ["contoso-kv.evil.test", false],
    ["evil.test/x#", false],
    ["contoso-kv\n", false],
    ["", false],
  ])("%j: %s", (name, valid) => {
    expect(isKeyVaultName(name)).toBe(valid);
  });
});
