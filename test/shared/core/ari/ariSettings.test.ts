import { describe, expect, it } from "vitest";
import { directoryFor, LETS_ENCRYPT_DIRECTORY } from "../../../../shared/core/ari/ariSettings.js";

/** Which CA's directory a served certificate is asked about, by its issuer's O or CN. */

const example = { issuer: "Example CA", directoryUrl: "https://acme.example/directory" };
const both = [LETS_ENCRYPT_DIRECTORY, example];

describe("directoryFor", () => {
  it.each([
    ["C=US\nO=Let's Encrypt\nCN=R10", LETS_ENCRYPT_DIRECTORY],
    ["C=US\nO=LET'S ENCRYPT\nCN=E5", LETS_ENCRYPT_DIRECTORY],
    ["CN=Example CA", example],
    ["O=Other\nCN=example ca", example],
    ["C=US\nO=(STAGING) Let's Encrypt\nCN=(STAGING) Counterfeit Cashew R10", undefined],
    ["C=US\nO=Google Trust Services\nCN=WR1", undefined],
    ["OU=Let's Encrypt", undefined],
    ["", undefined],
  ])("%j: %o", (issuer, expected) => {
    expect(directoryFor(both, issuer)).toEqual(expected);
  });

  it("no directories: never", () => {
    expect(directoryFor([], "O=Let's Encrypt")).toBeUndefined();
  });
});
