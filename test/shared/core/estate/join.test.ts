import { describe, expect, it } from "vitest";
import type { EstateCertificate } from "../../../../shared/core/estate/estate.js";
import { joinVaultCertificates } from "../../../../shared/core/estate/join.js";

const SUB = "00000000-0000-0000-0000-000000000001";
const EXPIRES = new Date("2026-12-11T00:00:00Z");

const base = (fields: Partial<EstateCertificate>): EstateCertificate => ({
  id: "x",
  kind: "key-vault",
  name: "x",
  subscriptionId: SUB,
  hostNames: [],
  moreHostNames: 0,
  boundTo: [],
  problems: [],
  ...fields,
});

const vaultCert = base({
  id: "https://kv-team.vault.azure.net/certificates/portal",
  name: "portal",
  expiresAt: EXPIRES,
  thumbprint: "AB".repeat(20),
  issuer: "Unknown",
  hostNames: ["portal.contoso.com"],
  autoRenew: false,
  problems: ["disabled in its vault"],
});
const listener = base({
  id: "/subscriptions/s/x/applicationgateways/agw/sslcertificates/portal",
  kind: "application-gateway",
  name: "portal",
  keyVaultId: "https://KV-team.vault.azure.net/secrets/Portal",
  boundTo: [{ kind: "listener", resourceId: "/x/listeners/https", hostName: "portal.contoso.com" }],
});

describe("vault certificates joined with their consumers", () => {
  it("a consumer from a listed vault certificate takes its dates, thumbprint, issuer and names; the vault's own entry goes", () => {
    const joined = joinVaultCertificates([listener], [vaultCert]);
    expect(joined).toEqual([
      {
        ...listener,
        expiresAt: EXPIRES,
        thumbprint: "AB".repeat(20),
        issuer: "Unknown",
        subject: undefined,
        notBefore: undefined,
        hostNames: ["portal.contoso.com"],
        moreHostNames: 0,
        autoRenew: false,
        problems: ["disabled in its vault"],
      },
    ]);
  });

  it("what the consumer knows itself stays; a vault certificate nobody uses stays, bound nowhere", () => {
    const own = new Date("2027-01-01T00:00:00Z");
    const lonely = base({
      id: "https://kv-team.vault.azure.net/certificates/lonely",
      name: "lonely",
    });
    const joined = joinVaultCertificates([{ ...listener, expiresAt: own }], [vaultCert, lonely]);
    expect(joined.map((c) => [c.name, c.expiresAt])).toEqual([
      ["portal", own],
      ["lonely", undefined],
    ]);
  });

  it("a consumer whose vault was not listed (403) stays as it is", () => {
    expect(joinVaultCertificates([listener], [])).toEqual([listener]);
  });
});
