import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TokenCache } from "../../../../shared/adapters/identity/tokenCache.js";
import { tokenCredential } from "../../../../shared/adapters/identity/tokenCredential.js";
import type { VaultCredentials } from "../../../../shared/adapters/probes/keyVaultProbe.js";
import { createProbes } from "../../../../shared/adapters/probes/probes.js";
import { probeTls } from "../../../../shared/adapters/probes/tlsProbe.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { makeCa, makeLeaf } from "../../../support/certificates.js";
import { type FakeKeyVault, startFakeKeyVault } from "../../../support/fakeKeyVault.js";

const VAULT_RESOURCE = "https://vault.azure.net";
const VAULT_TOKEN = "vault-token-9c04d2e7a1b84f36";

/** The vault credentials over a token cache, counting the credentials made. */
function credentials() {
  const tokens = new TokenCache({
    kind: "client-secret",
    getToken: async () => ({ token: VAULT_TOKEN, expiresOnMs: Date.now() + HOUR_MS }),
  });
  let made = 0;
  const vault: VaultCredentials = {
    resource: VAULT_RESOURCE,
    credential: () => {
      made += 1;
      return tokenCredential(tokens, VAULT_RESOURCE);
    },
    refused: () => false,
  };
  return { vault, made: () => made };
}

describe("createProbes", () => {
  let fake: FakeKeyVault;
  beforeEach(async () => {
    fake = await startFakeKeyVault();
  });
  afterEach(async () => {
    await fake.close();
  });

  it("TLS handshakes through the TLS probe", () => {
    expect(createProbes(credentials().vault).tls).toBe(probeTls);
  });

  it("vault reads with the vault credentials it was given", async () => {
    const ca = makeCa("certsched createProbes CA");
    const now = Date.now();
    const notAfter = new Date(Math.floor(now / 1000) * 1000 + 30 * DAY_MS);
    fake.setCertificate(
      "web-cert",
      makeLeaf(ca, { names: ["www.contoso.test"], notBefore: new Date(now - DAY_MS), notAfter })
        .cert,
    );
    const { vault, made } = credentials();
    const read = await createProbes(vault).keyVault(
      { keyVaultName: "contoso-kv", keyVaultCertificateName: "web-cert", certificateName: "web" },
      {
        settings: { timeoutMs: 5_000 },
        seam: { vaultUrl: () => fake.url, clientOptions: fake.certificateClientOptions },
      },
    );
    expect(read.reached).toBe(true);
    if (!read.reached) return;
    expect(read.certificate.notAfter.toISOString()).toBe(notAfter.toISOString());
    expect(made()).toBeGreaterThan(0);
    expect(fake.bearers).toContain(VAULT_TOKEN);
  });
});
