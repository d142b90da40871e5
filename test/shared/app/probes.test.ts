import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TokenCache } from "../../../shared/adapters/identity/tokenCache.js";
import { probeTls } from "../../../shared/adapters/probes/tlsProbe.js";
import { probeKeyVault, probesFor, vaultCredentials } from "../../../shared/app/probes.js";
import type { TokenSource } from "../../../shared/core/ports/tokens.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { makeCa, makeLeaf } from "../../support/certificates.js";
import { type FakeKeyVault, startFakeKeyVault } from "../../support/fakeKeyVault.js";

const VAULT_RESOURCE = "https://vault.azure.net";
const VAULT_TOKEN = "vault-token-3b8e61f0c2d94a57";

/** A token source that counts the resources it was asked for. */
function tokensOf(token = VAULT_TOKEN) {
  const asked: string[] = [];
  const source: TokenSource = {
    kind: "client-secret",
    getToken: async (resource) => {
      asked.push(resource);
      return { token, expiresOnMs: Date.now() + HOUR_MS };
    },
  };
  return { tokens: new TokenCache(source), asked };
}

describe("vaultCredentials", () => {
  it("the vault resource's token from the cache, and its refusals told to the cache", async () => {
    const refusals: [string, string][] = [];
    const { tokens, asked } = tokensOf();
    const spy = {
      token: (resource: string) => tokens.token(resource),
      refused: (resource: string, token: string) => {
        refusals.push([resource, token]);
        return true;
      },
    };
    const credentials = vaultCredentials(spy, VAULT_RESOURCE);
    expect(credentials.resource).toBe(VAULT_RESOURCE);
    const credential = credentials.credential();
    const got = await credential.getToken(`${VAULT_RESOURCE}/.default`);
    expect(got?.token).toBe(VAULT_TOKEN);
    expect(credential.lastToken).toBe(VAULT_TOKEN);
    expect(asked).toEqual([VAULT_RESOURCE]);
    expect(credentials.refused("t1")).toBe(true);
    expect(refusals).toEqual([[VAULT_RESOURCE, "t1"]]);
  });

  it("a fresh credential per read: none keeps the last one's token", async () => {
    const credentials = vaultCredentials(tokensOf().tokens, VAULT_RESOURCE);
    await credentials.credential().getToken(`${VAULT_RESOURCE}/.default`);
    expect(credentials.credential().lastToken).toBeUndefined();
  });
});

describe("probesFor", () => {
  it("TLS through the TLS probe", () => {
    expect(probesFor(tokensOf().tokens, VAULT_RESOURCE).tls).toBe(probeTls);
  });
});

describe("probeKeyVault", () => {
  let vault: FakeKeyVault;
  beforeEach(async () => {
    vault = await startFakeKeyVault();
  });
  afterEach(async () => {
    await vault.close();
  });

  const ca = makeCa("certsched app probes CA");
  const now = new Date();

  const options = (tokens: TokenCache) => ({
    tokens,
    vaultResource: VAULT_RESOURCE,
    settings: { warnDays: 14, windowMs: 2 * HOUR_MS, timeoutMs: 5_000 },
    now: () => now,
    seam: { vaultUrl: () => vault.url, clientOptions: vault.certificateClientOptions },
  });

  it("reads the vault's current version with the cache's vault token, and judges it", async () => {
    const notAfter = new Date(Math.floor(now.getTime() / 1000) * 1000 + 40 * DAY_MS);
    vault.setCertificate(
      "web-cert",
      makeLeaf(ca, {
        names: ["www.contoso.test"],
        notBefore: new Date(now.getTime() - DAY_MS),
        notAfter,
      }).cert,
    );
    const { tokens, asked } = tokensOf();
    const result = await probeKeyVault(
      { keyVaultName: "contoso-kv", keyVaultCertificateName: "web-cert", certificateName: "web" },
      options(tokens),
    );
    expect(result).toMatchObject({
      domain: "contoso-kv/web-cert",
      certificateName: "web",
      source: "keyvault",
      status: "ok",
      servedNotAfter: notAfter.toISOString(),
    });
    expect(vault.bearers).toContain(VAULT_TOKEN);
    expect(new Set(asked)).toEqual(new Set([VAULT_RESOURCE]));
  });

  it("a vault name Azure would refuse is never read, and no token is asked for", async () => {
    const { tokens, asked } = tokensOf();
    const result = await probeKeyVault(
      { keyVaultName: "evil.example", certificateName: "web" },
      options(tokens),
    );
    expect(result.status).toBe("unverifiable");
    expect(vault.requests).toEqual([]);
    expect(asked).toEqual([]);
  });
});
