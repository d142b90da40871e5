import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenCache } from "../../../../shared/adapters/identity/tokenCache.js";
import { probesFor } from "../../../../shared/app/probes.js";
import type { KeyVaultReadOptions, Probes } from "../../../../shared/core/ports/probes.js";
import type { KeyVaultTarget } from "../../../../shared/core/verification/vaultVerdict.js";
import { makeCa, makeLeaf } from "../../../support/certificates.js";
import { type FakeKeyVault, startFakeKeyVault } from "../../../support/fakeKeyVault.js";

/**
 * A read of one version (the version a Key Vault event names), through the real
 * CertificateClient and the HTTPS fake vault: the version asked, not the current one; a version
 * the vault does not hold is `not-found`, naming it.
 */

const DAY = 86_400_000;
const NOW = Date.now();
const VAULT = "https://vault.azure.net";

const ca = makeCa("certsched vault version test CA");
const leaf = (serial: string, days: number) =>
  makeLeaf(ca, {
    names: ["www.contoso.test"],
    notBefore: new Date(NOW - DAY),
    notAfter: new Date(NOW + days * DAY),
    serial,
  }).cert;

const TARGET: KeyVaultTarget = {
  keyVaultName: "contoso-kv",
  keyVaultCertificateName: "www-contoso",
  certificateName: "www.contoso.test",
};

let vault: FakeKeyVault;
let probes: Probes;
let older: string;
let current: string;
beforeAll(async () => {
  vault = await startFakeKeyVault();
  older = vault.setCertificate("www-contoso", leaf("0a01", 30));
  current = vault.setCertificate("www-contoso", leaf("0a02", 90));
  const tokens = new TokenCache({
    kind: "client-secret",
    getToken: async () => ({ token: "vault-token-4c1e9a", expiresOnMs: Date.now() + DAY }),
  });
  probes = probesFor(tokens, VAULT);
});
afterAll(async () => {
  await vault.close();
});

const read = (version?: string) => {
  const options: KeyVaultReadOptions = {
    settings: { timeoutMs: 5_000 },
    seam: { vaultUrl: () => vault.url, clientOptions: vault.certificateClientOptions },
    ...(version === undefined ? {} : { version }),
  };
  return probes.keyVault(TARGET, options);
};

describe("a vault read of one version", () => {
  it("reads the version asked, not the current one, and asks the vault for that version", async () => {
    const result = await read(older);
    expect(result.reached && result.version).toBe(older);
    expect(result.reached && result.certificate.serial).toBe("0A01");
    expect(vault.requests.at(-1)?.path).toBe(`/certificates/www-contoso/${older}`);
  });

  it("without a version: the current one, as before", async () => {
    const result = await read();
    expect(result.reached && result.version).toBe(current);
    expect(result.reached && result.certificate.serial).toBe("0A02");
  });

  it("a version the vault does not hold: not-found, the detail naming the version", async () => {
    const missing = "0123456789abcdef0123456789abcdef";
    expect(await read(missing)).toEqual({
      reached: false,
      failure: "not-found",
      status: 404,
      detail: `vault contoso-kv holds no version ${missing} of certificate www-contoso (404): the version was deleted, or never was this certificate's`,
    });
  });

  it("a vault answering with another version than the one asked: not read as it", async () => {
    const other = await startFakeKeyVault();
    try {
      const cer = leaf("0a03", 60).replace(/-----[A-Z ]+-----|\s/g, "");
      const id = `${other.url}/certificates/www-contoso/${current}`;
      other.inject({
        status: 200,
        body: JSON.stringify({ id, cer, attributes: { enabled: true } }),
        times: 5,
      });
      const result = await probes.keyVault(TARGET, {
        settings: { timeoutMs: 5_000 },
        seam: { vaultUrl: () => other.url, clientOptions: other.certificateClientOptions },
        version: older,
      });
      expect(result).toEqual({
        reached: false,
        failure: "http",
        status: 200,
        detail: `vault contoso-kv answered for version ${older} of certificate www-contoso with another version (${current}): it is not read as the one asked`,
      });
    } finally {
      await other.close();
    }
  });

  it("a version that cannot be one (a path in it): not-found, and the vault is not asked", async () => {
    const asked = vault.requests.length;
    const result = await read("../other/x");
    expect(result).toMatchObject({ reached: false, failure: "not-found" });
    expect(!result.reached && result.detail).toContain(
      "holds no version ../other/x of certificate www-contoso (not a Key Vault version)",
    );
    expect(vault.requests.length).toBe(asked);
  });
});
