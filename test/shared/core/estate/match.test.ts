import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  coversName,
  renewedHostNames,
  vaultCertificateOf,
} from "../../../../shared/core/estate/match.js";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import { propertyRuns } from "../../../support/fastCheck.js";

describe("vaultCertificateOf", () => {
  it.each([
    ["https://kv.vault.azure.net/certificates/api", { vault: "kv", name: "api" }],
    ["https://KV.vault.azure.net/secrets/API/0123abcd", { vault: "kv", name: "api" }],
    ["https://kv.vault.azure.cn/certificates/api/", { vault: "kv", name: "api" }],
  ])("reads %s", (id, expected) => expect(vaultCertificateOf(id)).toEqual(expected));

  it.each([
    undefined,
    "http://kv.vault.azure.net/certificates/api",
    "https://kv.vault.azure.net/keys/api",
    "https://kv.example.net/certificates/api",
    "https://kv.vault.azure.net/certificates/api/v1/extra",
    "/subscriptions/s/resourcegroups/g/providers/microsoft.web/certificates/c",
  ])("refuses %s", (id) => expect(vaultCertificateOf(id)).toBeUndefined());
});

describe("coversName", () => {
  it.each([
    ["www.contoso.com", "www.contoso.com", true],
    ["*.contoso.com", "www.contoso.com", true],
    ["www.contoso.com", "*.contoso.com", true],
    ["*.contoso.com", "*.contoso.com", true],
    ["*.contoso.com", "contoso.com", false],
    ["*.contoso.com", "a.b.contoso.com", false],
    ["*.contoso.com", "*.b.contoso.com", false],
    ["*.contoso.com", "wwwcontoso.com", false],
    ["www.contoso.com", "www.contoso.org", false],
  ])("%s and %s: %s", (a, b, expected) => expect(coversName(a, b)).toBe(expected));

  it("is symmetric", () => {
    const name = fc.oneof(
      fc.domain(),
      fc.domain().map((d) => `*.${d}`),
    );
    fc.assert(
      fc.property(name, name, (a, b) => {
        expect(coversName(a, b)).toBe(coversName(b, a));
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe("renewedHostNames", () => {
  const at = new Date("2026-12-02T00:00:00Z");
  const record = (certificateName: string, fields: Partial<InventoryRecord>): InventoryRecord => ({
    certificateName,
    source: "due-list",
    firstSeen: at,
    lastSeen: at,
    ...fields,
  });

  it("takes each record's root domain and SAN names, valid ones, once; never a watched endpoint's", () => {
    expect(
      renewedHostNames([
        record("a", {
          rootDomain: "Contoso.com.",
          sanNames: ["www.contoso.com", "bad name", "contoso.com"],
        }),
        record("b", {}),
        record("watch:shop.example:8443", { rootDomain: "shop.example" }),
      ]),
    ).toEqual(["contoso.com", "www.contoso.com"]);
  });
});
