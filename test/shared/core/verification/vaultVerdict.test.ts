import { describe, expect, it } from "vitest";
import type { KeyVaultRead, ServedCertificate } from "../../../../shared/core/ports/probes.js";
import {
  type KeyVaultTarget,
  refusedVaultName,
  vaultVerdict,
} from "../../../../shared/core/verification/vaultVerdict.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";

const NOW = new Date("2025-03-01T12:00:00.000Z");
const settings = { warnDays: 14, windowMs: 2 * HOUR_MS };
const options = { now: NOW, settings };

const certificate = (daysLeft: number): ServedCertificate => ({
  notBefore: new Date(NOW.getTime() - 60 * DAY_MS),
  notAfter: new Date(NOW.getTime() + daysLeft * DAY_MS),
  issuer: "CN=Test CA",
  subject: "CN=web",
  serial: "0A",
  thumbprint: "CD".repeat(32),
  altNames: [],
});

const read = (daysLeft: number): KeyVaultRead => ({
  reached: true,
  connectedTo: "kv1.vault.azure.net:443",
  certificate: certificate(daysLeft),
  chainProblem: undefined,
  nameProblem: undefined,
  version: "v2",
});

const target: KeyVaultTarget = {
  keyVaultName: "kv1",
  keyVaultCertificateName: "web-cert",
  certificateName: "web",
};

describe("refusedVaultName", () => {
  it("undefined for a name Azure accepts", () => {
    expect(refusedVaultName(target)).toBeUndefined();
  });

  it("unverifiable, escaped, for one it would not", () => {
    expect(refusedVaultName({ ...target, keyVaultName: "evil.example.com\n" })).toEqual({
      domain: "evil.example.com\\u{0a}/web-cert",
      certificateName: "web",
      source: "keyvault",
      status: "unverifiable",
      detail:
        '"evil.example.com\\u{0a}/web-cert" does not name a Key Vault: a vault name is 3-24 letters, digits and single hyphens, starting with a letter',
    });
  });
});

describe("vaultVerdict", () => {
  it("the vault's version's CT hashes ride on the result; a version without them has none", () => {
    const hashes = { pubkeySha256: "0f".repeat(32), tbsSha256: "a1".repeat(32) };
    const hashed: KeyVaultRead = {
      reached: true,
      connectedTo: "kv1.vault.azure.net:443",
      certificate: { ...certificate(40), ...hashes },
      chainProblem: undefined,
      nameProblem: undefined,
      version: "v2",
    };
    expect(vaultVerdict(target, hashed, options)).toMatchObject(hashes);
    expect(vaultVerdict(target, read(40), options)).not.toHaveProperty("pubkeySha256");
  });

  it("ok: the vault's current version and the days it has left", () => {
    expect(vaultVerdict(target, read(40), options)).toEqual({
      domain: "kv1/web-cert",
      certificateName: "web",
      source: "keyvault",
      status: "ok",
      servedNotAfter: certificate(40).notAfter.toISOString(),
      daysLeft: 40,
      issuer: "CN=Test CA",
      serial: "0A",
      thumbprint: "CD".repeat(32),
      notBefore: certificate(40).notBefore.toISOString(),
      version: "v2",
      detail: `the vault's current version has 40 days left (expires ${certificate(40).notAfter.toISOString()})`,
    });
  });

  it("one day is singular; the vault name falls back to the certificate's", () => {
    const result = vaultVerdict({ keyVaultName: "kv1", certificateName: "web" }, read(1), {
      now: NOW,
      settings: { ...settings, warnDays: 1 },
    });
    expect(result.domain).toBe("kv1/web");
    expect(result.detail.startsWith("the vault's current version has 1 day left")).toBe(true);
  });

  it("speaks of the vault's current version where a probe speaks of the served certificate", () => {
    const renewal = {
      acceptedAt: new Date(NOW.getTime() - 3 * HOUR_MS),
      expiryAtRequest: certificate(40).notAfter,
    };
    const result = vaultVerdict({ ...target, renewal }, read(40), options);
    expect(result.status).toBe("not-landed");
    expect(result.detail).toContain("the vault's current version still expires at");
    expect(result.detail).not.toContain("the certificate served");
  });

  it("critical when below the critical days, flagged only then", () => {
    expect(vaultVerdict(target, read(3), options)).toMatchObject({
      status: "expiring",
      critical: true,
    });
    expect("critical" in vaultVerdict(target, read(10), options)).toBe(false);
  });

  it("expired is expired", () => {
    expect(vaultVerdict(target, read(-2), options).status).toBe("expired");
  });

  it("unreachable when the vault could not be read, its detail bounded", () => {
    const result = vaultVerdict(
      target,
      { reached: false, failure: "forbidden", status: 403, detail: "y".repeat(3_000) },
      options,
    );
    expect(result).toMatchObject({
      domain: "kv1/web-cert",
      certificateName: "web",
      source: "keyvault",
      status: "unreachable",
    });
    expect(result.detail.length).toBeLessThanOrEqual(500);
  });
});
