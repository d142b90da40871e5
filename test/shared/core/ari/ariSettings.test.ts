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
    // As the TLS probe keeps it (describeCertificate joins the lines with ", ").
    ["C=US, O=Let's Encrypt, CN=R11", LETS_ENCRYPT_DIRECTORY],
    ["C=US, O=Example, Inc., CN=Issuing 1", undefined],
  ])("%j: %o", (issuer, expected) => {
    expect(directoryFor(both, issuer)).toEqual(expected);
  });

  it("an issuer name with a comma in it matches whole", () => {
    const inc = { issuer: "Example, Inc.", directoryUrl: "https://acme.example/d" };
    expect(directoryFor([inc], "C=US, O=Example, Inc., CN=Issuing 1")).toEqual(inc);
    expect(directoryFor([inc], "C=US\nO=Example, Inc.\nCN=Issuing 1")).toEqual(inc);
  });

  it("no directories: never", () => {
    expect(directoryFor([], "O=Let's Encrypt")).toBeUndefined();
  });
});
