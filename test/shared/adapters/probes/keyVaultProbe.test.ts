import { createHash, X509Certificate } from "node:crypto";
import forge from "node-forge";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TokenCache } from "../../../../shared/adapters/identity/tokenCache.js";
import { type KeyVaultProbeOptions, probeKeyVault } from "../../../../shared/app/probes.js";
import type { AccessToken, TokenSource } from "../../../../shared/core/ports/tokens.js";
import type { AcceptedRenewal } from "../../../../shared/core/verification/judge.js";
import { defaultVaultUrl } from "../../../../shared/core/verification/keyVaultName.js";
import type { KeyVaultTarget } from "../../../../shared/core/verification/vaultVerdict.js";
import { makeCa, makeLeaf } from "../../../support/certificates.js";
import { type FakeKeyVault, startFakeKeyVault } from "../../../support/fakeKeyVault.js";
import { closedPort } from "../../../support/tlsServers.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Whole seconds: X.509 keeps no milliseconds. The judge's clock; the vault does not care. */
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

const ca = makeCa("certsched vault test CA");
const leaf = (notAfter: Date, serial = "0a") =>
  makeLeaf(ca, { names: ["www.contoso.test"], notBefore: at(-30 * DAY), notAfter, serial }).cert;
const sha256 = (pem: string) =>
  createHash("sha256").update(new X509Certificate(pem).raw).digest("hex").toUpperCase();
/** The thumbprint Azure shows: SHA-1 of the DER, upper-case hex. */
const sha1 = (pem: string) =>
  createHash("sha1").update(new X509Certificate(pem).raw).digest("hex").toUpperCase();
/** What CT monitors hash: the key (SPKI) and the TBS, as issued here (no CT extensions). */
function ctHashes(pem: string) {
  const hash = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  const cert = forge.asn1.fromDer(forge.pem.decode(pem)[0]?.body ?? "");
  const tbs = (cert.value as forge.asn1.Asn1[])[0] as forge.asn1.Asn1;
  return {
    pubkeySha256: hash(new X509Certificate(pem).publicKey.export({ type: "spki", format: "der" })),
    tbsSha256: hash(Buffer.from(forge.asn1.toDer(tbs).getBytes(), "binary")),
  };
}

const VAULT_RESOURCE = "https://vault.azure.net";
const VAULT_TOKEN = "vault-token-7d1f0c9a2b4e4e8f";

/** A token source for the vault resource only, counting what it was asked. */
function vaultSource(tokens: readonly string[] = [VAULT_TOKEN]) {
  const asked: string[] = [];
  const source: TokenSource = {
    kind: "client-secret",
    getToken: async (resource): Promise<AccessToken> => {
      asked.push(resource);
      const token = tokens[Math.min(asked.length, tokens.length) - 1] ?? "";
      return { token, expiresOnMs: Date.now() + HOUR };
    },
  };
  return { source, asked };
}

let vault: FakeKeyVault;
beforeEach(async () => {
  vault = await startFakeKeyVault();
});
afterEach(async () => {
  await vault.close();
});

const TARGET: KeyVaultTarget = {
  keyVaultName: "contoso-kv",
  keyVaultCertificateName: "www-contoso",
  certificateName: "www.contoso.test",
};

function options(overrides: Partial<KeyVaultProbeOptions> = {}): KeyVaultProbeOptions {
  return {
    tokens: new TokenCache(vaultSource().source),
    vaultResource: VAULT_RESOURCE,
    settings: { warnDays: 14, windowMs: 2 * HOUR, timeoutMs: 5_000 },
    now: () => NOW,
    seam: { vaultUrl: () => vault.url, clientOptions: vault.certificateClientOptions },
    ...overrides,
  };
}

describe("probeKeyVault through the real CertificateClient and the HTTPS fake vault", () => {
  it("reports the current version: ok, expiry, days left, issuer, serial, SHA-256 and SHA-1 thumbprints", async () => {
    const current = leaf(at(60 * DAY + HOUR), "0badc0de");
    vault.setCertificate("www-contoso", leaf(at(5 * DAY), "01"));
    const version = vault.setCertificate("www-contoso", current);

    const result = await probeKeyVault(TARGET, options());

    expect(result).toEqual({
      domain: "contoso-kv/www-contoso",
      certificateName: "www.contoso.test",
      source: "keyvault",
      status: "ok",
      servedNotAfter: at(60 * DAY + HOUR).toISOString(),
      daysLeft: 60,
      issuer: "CN=certsched vault test CA",
      serial: "0BADC0DE",
      thumbprint: sha256(current),
      sha1Thumbprint: sha1(current),
      // The facts a renewal's receipt records: which version, issued when.
      notBefore: at(-30 * DAY).toISOString(),
      version,
      // How Certificate Transparency issuances are matched with the vault's certificate.
      ...ctHashes(current),
      detail: `the vault's current version has 60 days left (expires ${at(60 * DAY + HOUR).toISOString()})`,
    });
    expect(vault.certificateReads("www-contoso")).toBe(1);
  });

  it("reads certificateName when the record has no keyVaultCertificateName", async () => {
    vault.setCertificate("plain-name", leaf(at(60 * DAY)));
    const result = await probeKeyVault(
      { keyVaultName: "contoso-kv", certificateName: "plain-name" },
      options(),
    );
    expect(result.status).toBe("ok");
    expect(result.domain).toBe("contoso-kv/plain-name");
    expect(vault.certificateReads("plain-name")).toBe(1);
  });

  // The warning days and the critical line, pinned on each side (days left are floored).
  it.each([
    { left: 15, status: "ok", critical: undefined },
    { left: 14, status: "ok", critical: undefined },
    { left: 13, status: "expiring", critical: undefined },
    { left: 7, status: "expiring", critical: undefined },
    { left: 6, status: "expiring", critical: true },
    { left: 0, status: "expiring", critical: true },
  ])("$left whole days left: $status, critical $critical", async ({ left, status, critical }) => {
    vault.setCertificate("www-contoso", leaf(at(left * DAY + HOUR)));
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe(status);
    expect(result.critical).toBe(critical);
    expect(result.daysLeft).toBe(left);
    if (critical) expect(result.detail).toMatch(/^critical: /);
  });

  it("an expired current version: expired, with a negative days left", async () => {
    vault.setCertificate("www-contoso", leaf(at(-HOUR)));
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe("expired");
    expect(result.daysLeft).toBe(-1);
    expect(result.servedNotAfter).toBe(at(-HOUR).toISOString());
    expect(result.detail).toBe(`expired at ${at(-HOUR).toISOString()}, 1 hour ago`);
  });

  it("a version expiring this very second is not expired yet (X.509 includes notAfter)", async () => {
    vault.setCertificate("www-contoso", leaf(NOW));
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe("expiring");
    expect(result.critical).toBe(true);
    expect(result.daysLeft).toBe(0);
  });

  describe("against an accepted renewal", () => {
    const oldExpiry = at(5 * DAY);
    const renewal = (acceptedAgoMs: number): AcceptedRenewal => ({
      acceptedAt: at(-acceptedAgoMs),
      expiryAtRequest: oldExpiry,
    });

    beforeEach(() => {
      vault.setCertificate("www-contoso", leaf(oldExpiry, "01"));
    });

    it("pending while the window runs and the vault still holds the old version", async () => {
      const result = await probeKeyVault({ ...TARGET, renewal: renewal(HOUR) }, options());
      expect(result.status).toBe("pending");
      expect(result.daysLeft).toBe(5);
      expect(result.detail).toContain("renewal accepted 1 hour ago");
      expect(result.detail).toContain(
        `the vault's current version still expires at ${oldExpiry.toISOString()}`,
      );
      expect(result.detail).not.toContain("served");
    });

    it("not-landed once the window has passed (exactly at its end too)", async () => {
      for (const ago of [2 * HOUR, 3 * HOUR]) {
        const result = await probeKeyVault({ ...TARGET, renewal: renewal(ago) }, options());
        expect(result.status).toBe("not-landed");
        expect(result.detail).toContain("more than 2 h ago (CERTSCHED_VERIFY_WINDOW)");
        expect(result.detail).toContain("the vault's current version still expires");
      }
      // One millisecond inside the window is still pending.
      const inside = await probeKeyVault({ ...TARGET, renewal: renewal(2 * HOUR - 1) }, options());
      expect(inside.status).toBe("pending");
    });

    it("ok once the renewed version is current, whatever the window says", async () => {
      const renewed = leaf(at(90 * DAY), "02");
      vault.setCertificate("www-contoso", renewed);
      const result = await probeKeyVault({ ...TARGET, renewal: renewal(3 * HOUR) }, options());
      expect(result.status).toBe("ok");
      expect(result.thumbprint).toBe(sha256(renewed));
      expect(result.serial).toBe("02");
    });
  });
});

describe("probeKeyVault when the vault cannot be read: unreachable, saying why", () => {
  it("404: the vault holds no such certificate", async () => {
    const result = await probeKeyVault(TARGET, options());
    expect(result).toEqual({
      domain: "contoso-kv/www-contoso",
      certificateName: "www.contoso.test",
      source: "keyvault",
      status: "unreachable",
      detail:
        "vault contoso-kv holds no certificate named www-contoso (404 CertificateNotFound): check keyVaultCertificateName, and whether the certificate was deleted",
    });
    expect(result.servedNotAfter).toBeUndefined();
  });

  it("403: the identity may not read certificates; names the role to grant, asks once", async () => {
    vault.setCertificate("www-contoso", leaf(at(60 * DAY)));
    vault.inject({
      status: 403,
      authorizedOnly: true,
      body: JSON.stringify({
        error: {
          code: "Forbidden",
          message:
            "Caller is not authorized to perform action on resource.\r\nIf role assignments, deny assignments or role definitions were changed recently, please observe propagation time.\r\nCaller: appid=00000000-0000-0000-0000-000000000001;oid=00000000-0000-0000-0000-000000000002\r\nAction: 'Microsoft.KeyVault/vaults/certificates/read'\r\n",
          innererror: { code: "ForbiddenByRbac" },
        },
      }),
    });
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe("unreachable");
    expect(result.detail).toBe(
      "vault contoso-kv refused to read certificate www-contoso (403 Forbidden, ForbiddenByRbac): the app's identity may not read certificates in vault contoso-kv: grant Key Vault Certificate User on the vault (or, with access policies, the certificate Get permission)",
    );
    // A refusal is not retried.
    expect(vault.certificateReads("www-contoso")).toBe(1);
  });

  it("timeout: a vault that never answers is given up after CERTSCHED_HTTP_TIMEOUT", async () => {
    vault.setCertificate("www-contoso", leaf(at(60 * DAY)));
    vault.inject({ hang: true, times: Number.POSITIVE_INFINITY });
    const result = await probeKeyVault(
      TARGET,
      options({ settings: { warnDays: 14, windowMs: 2 * HOUR, timeoutMs: 300 } }),
    );
    expect(result.status).toBe("unreachable");
    expect(result.detail).toBe(
      "no answer from vault contoso-kv within 300 ms (CERTSCHED_HTTP_TIMEOUT)",
    );
    expect(vault.requests.length).toBeGreaterThan(0);
  });

  it("timeout: a token source that never answers is given up too", async () => {
    vault.setCertificate("www-contoso", leaf(at(60 * DAY)));
    const stuck: TokenSource = { kind: "managed-identity", getToken: () => new Promise(() => {}) };
    const result = await probeKeyVault(
      TARGET,
      options({
        tokens: new TokenCache(stuck),
        settings: { warnDays: 14, windowMs: 2 * HOUR, timeoutMs: 300 },
      }),
    );
    expect(result.detail).toBe(
      "no answer from vault contoso-kv within 300 ms (CERTSCHED_HTTP_TIMEOUT)",
    );
    // The challenge went out; no request ever carried a token.
    expect(vault.tokensSeen()).toEqual([]);
  });

  it("a closed port: cannot connect, with the system's code", async () => {
    const port = await closedPort();
    const result = await probeKeyVault(
      TARGET,
      options({
        seam: {
          vaultUrl: () => `https://127.0.0.1:${port}`,
          clientOptions: vault.certificateClientOptions,
        },
      }),
    );
    expect(result.status).toBe("unreachable");
    expect(result.detail).toMatch(
      new RegExp(
        `^cannot read from vault contoso-kv at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): `,
      ),
    );
  });

  it("a vault failing with 5xx: tried again within the bounded retries, then its own words", async () => {
    vault.setCertificate("www-contoso", leaf(at(60 * DAY)));
    vault.inject({
      status: 503,
      authorizedOnly: true,
      times: Number.POSITIVE_INFINITY,
      body: JSON.stringify({
        error: { code: "ServiceUnavailable", message: "The service is busy.\nTry later." },
      }),
    });
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe("unreachable");
    expect(result.detail).toBe(
      "vault contoso-kv answered 503 ServiceUnavailable for certificate www-contoso: The service is busy.",
    );
    // 1 try + RETRY_OPTIONS.maxRetries (2).
    expect(vault.certificateReads("www-contoso")).toBe(3);
  });

  it("a certificate with no issued version yet (200 without cer)", async () => {
    vault.inject({
      status: 200,
      authorizedOnly: true,
      body: JSON.stringify({
        id: `${vault.url}/certificates/www-contoso/0123456789abcdef0123456789abcdef`,
        attributes: { enabled: false, created: 1, updated: 1 },
      }),
    });
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe("unreachable");
    expect(result.detail).toBe(
      "vault contoso-kv holds certificate www-contoso but no issued version of it yet",
    );
  });

  it("cancelled by the caller: says so, reads nothing", async () => {
    vault.setCertificate("www-contoso", leaf(at(60 * DAY)));
    const controller = new AbortController();
    controller.abort();
    const result = await probeKeyVault(TARGET, options({ signal: controller.signal }));
    expect(result.status).toBe("unreachable");
    expect(result.detail).toBe("the verification was cancelled");
    expect(vault.certificateReads("www-contoso")).toBe(0);
  });

  it.each([
    "evil.example/x#",
    "contoso-kv.attacker.test",
    "ab",
    "a".repeat(25),
    "1vault",
    "con--toso",
    "contoso-",
  ])(
    "a vault name Azure would refuse (%s): unverifiable, nothing sent, no token asked",
    async (keyVaultName) => {
      const { source, asked } = vaultSource();
      const result = await probeKeyVault(
        { ...TARGET, keyVaultName },
        options({ tokens: new TokenCache(source) }),
      );
      expect(result.status).toBe("unverifiable");
      expect(result.detail).toContain("does not name a Key Vault");
      expect(vault.requests).toEqual([]);
      expect(asked).toEqual([]);
    },
  );
});

describe("defaultVaultUrl", () => {
  it.each([
    ["contoso-kv", "https://vault.azure.net", "https://contoso-kv.vault.azure.net"],
    ["Contoso-KV", "https://vault.azure.net/", "https://contoso-kv.vault.azure.net"],
    ["contoso-kv", "https://vault.azure.cn", "https://contoso-kv.vault.azure.cn"],
    ["contoso-kv", "not a url", "https://contoso-kv.vault.azure.net"],
  ])("%s with resource %s: %s", (name, resource, url) => {
    expect(defaultVaultUrl(name, resource)).toBe(url);
  });
});
