import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TokenCache } from "../../../../shared/adapters/identity/tokenCache.js";
import { MAX_VAULT_ANSWER_BYTES } from "../../../../shared/adapters/probes/keyVaultProbe.js";
import { type KeyVaultProbeOptions, probeKeyVault } from "../../../../shared/app/probes.js";
import type { TokenSource } from "../../../../shared/core/ports/tokens.js";
import { type FakeKeyVault, startFakeKeyVault } from "../../../support/fakeKeyVault.js";
import { makeSelfSignedCert } from "../../../support/tls.js";

/**
 * A vault (or whatever answers at its address: a captive portal, a proxy's login page) that answers
 * an HTML 200 or a redirect once gave the detail "Cannot read properties of undefined (reading
 * 'split')". The detail says what came back, bounded, redacted, escaped; a redirect is not followed
 * (the vault token would go along).
 */

const HOUR = 3_600_000;
const VAULT_TOKEN = "vault-token-5e2a9c41d7b04f13";
const source: TokenSource = {
  kind: "client-secret",
  getToken: async () => ({ token: VAULT_TOKEN, expiresOnMs: Date.now() + HOUR }),
};

let vault: FakeKeyVault;
beforeEach(async () => {
  vault = await startFakeKeyVault();
});
afterEach(async () => {
  await vault.close();
});

function options(): KeyVaultProbeOptions {
  return {
    tokens: new TokenCache(source),
    vaultResource: "https://vault.azure.net",
    settings: { warnDays: 14, windowMs: 2 * HOUR, timeoutMs: 5_000 },
    now: () => new Date(),
    seam: { vaultUrl: () => vault.url, clientOptions: vault.certificateClientOptions },
  };
}

const TARGET = { keyVaultName: "contoso-kv", certificateName: "www-contoso" };

/** Every request to the fake after the SDK's unauthenticated challenge answers this. */
const always = (fault: Parameters<FakeKeyVault["inject"]>[0]) =>
  vault.inject({ ...fault, authorizedOnly: true, times: Number.POSITIVE_INFINITY });

describe("a vault that answers something else than Key Vault", () => {
  it("an HTML 200: unreachable, and the detail says a 200 text/html came back, not what broke inside", async () => {
    always({
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8" },
      body: `<html><head><title>Sign in \u001b[31m to the proxy</title></head><body>${"x".repeat(5_000)}</body></html>`,
    });
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe("unreachable");
    expect(result.detail).not.toContain("Cannot read properties");
    expect(result.detail).toBe(
      "vault contoso-kv answered 200 (text/html; charset=utf-8) for certificate www-contoso, which is not a Key Vault certificate: the address does not lead to the vault (a proxy or portal page?)",
    );
  });

  it("a 200 JSON that is not a certificate bundle: the same, with its content type", async () => {
    always({ status: 200, body: JSON.stringify({ hello: "world" }) });
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe("unreachable");
    expect(result.detail).toBe(
      "vault contoso-kv answered 200 (application/json) for certificate www-contoso, which is not a Key Vault certificate: the address does not lead to the vault (a proxy or portal page?)",
    );
  });

  it("a 302: not followed (no token leaves for the Location), and the detail names the status and where it pointed", async () => {
    const { key, cert } = await makeSelfSignedCert();
    let elsewhere = 0;
    const other = createServer({ key, cert }, (_req, res) => {
      elsewhere += 1;
      res.end();
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const location = `https://127.0.0.1:${(other.address() as AddressInfo).port}/login?token=${VAULT_TOKEN}&next=%1b[2J`;
      always({
        status: 302,
        headers: { location, "content-type": "text/html" },
        body: "<a>moved</a>",
      });
      const result = await probeKeyVault(TARGET, options());
      expect(result.status).toBe("unreachable");
      expect(elsewhere).toBe(0);
      expect(result.detail).not.toContain(VAULT_TOKEN);
      expect(result.detail).toMatch(
        /^vault contoso-kv answered 302 \(text\/html\) for certificate www-contoso: a redirect to https:\/\/127\.0\.0\.1:\d+\/login, which certsched does not follow/,
      );
    } finally {
      other.close();
      other.closeAllConnections();
    }
  });

  it("a 5xx with an HTML body: the status and content type, never the page", async () => {
    always({
      status: 502,
      headers: { "content-type": "text/html" },
      body: "<html><body>Bad gateway</body></html>",
    });
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe("unreachable");
    expect(result.detail).toContain("vault contoso-kv answered 502");
    expect(result.detail).not.toContain("<html>");
  });
});

describe("a vault answer for another certificate", () => {
  it("a bundle whose id names another certificate (or vault) is not read as this one's: unreachable, naming what came back", async () => {
    const { cert } = await makeSelfSignedCert();
    const cer = cert.replace(/-----[A-Z ]+-----|\s/g, "");
    const answers = [
      "https://contoso-kv.vault.azure.net/certificates/other-cert/0123abcd",
      "https://elsewhere-kv.vault.azure.net/certificates/www-contoso/0123abcd",
    ];
    /** A fresh fake for each answer: its first fault would answer every request after. */
    const freshVault = async () => {
      await vault.close();
      vault = await startFakeKeyVault();
    };
    for (const id of answers) {
      await freshVault();
      always({ status: 200, body: JSON.stringify({ id, cer, attributes: { enabled: true } }) });
      const result = await probeKeyVault(TARGET, options());
      expect(result.status, id).toBe("unreachable");
      expect(result.servedNotAfter, id).toBeUndefined();
      expect(result.detail, id).toMatch(
        /^vault contoso-kv answered for certificate www-contoso with the record of another certificate \((other-cert in vault contoso-kv|www-contoso in vault elsewhere-kv)\): it is not read as this one's$/,
      );
    }
    // The same certificate, its name in another case (Key Vault names ignore case): read.
    await freshVault();
    always({
      status: 200,
      body: JSON.stringify({
        id: "https://CONTOSO-KV.vault.azure.net/certificates/WWW-Contoso/0123abcd",
        cer,
        attributes: { enabled: true },
      }),
    });
    const same = await probeKeyVault(TARGET, options());
    expect(same.servedNotAfter).toBeDefined();
  });
});

describe("the size of a vault answer", () => {
  it("a certificate bundle of exactly 1 MiB is read; one byte more is unreachable, naming the bound, and the vault is asked once", async () => {
    const { cert } = await makeSelfSignedCert();
    const cer = cert.replace(/-----[A-Z ]+-----|\s/g, "");
    const bundle = JSON.stringify({
      id: "https://contoso-kv.vault.azure.net/certificates/www-contoso/0123abcd",
      cer,
      attributes: { enabled: true },
    });
    // JSON allows any whitespace after the value: the same bundle, `bytes` long.
    const ofLength = (bytes: number) => `${bundle}${" ".repeat(bytes - bundle.length)}`;
    expect(MAX_VAULT_ANSWER_BYTES).toBe(1024 * 1024);

    always({ status: 200, body: ofLength(MAX_VAULT_ANSWER_BYTES) });
    const atBound = await probeKeyVault(TARGET, options());
    expect(atBound.servedNotAfter).toBeDefined();
    expect(atBound.status).not.toBe("unreachable");

    await vault.close();
    vault = await startFakeKeyVault();
    always({ status: 200, body: ofLength(MAX_VAULT_ANSWER_BYTES + 1) });
    const over = await probeKeyVault(TARGET, options());
    expect(over.status).toBe("unreachable");
    expect(over.servedNotAfter).toBeUndefined();
    expect(over.detail).toBe(
      "vault contoso-kv's answer (200) for certificate www-contoso is longer than 1 MiB, which is not a Key Vault certificate; certsched reads at most that of one answer",
    );
    // Not tried again: the same vault would send the same answer.
    expect(vault.certificateReads("www-contoso")).toBe(1);
  });

  it("a 403 with a body over the bound still says what a 403 says (the role to grant)", async () => {
    always({ status: 403, body: " ".repeat(MAX_VAULT_ANSWER_BYTES + 1) });
    const result = await probeKeyVault(TARGET, options());
    expect(result.status).toBe("unreachable");
    expect(result.detail).toMatch(
      /^vault contoso-kv refused to read certificate www-contoso \(403 ANSWER_TOO_LARGE\): the app's identity may not read certificates in vault contoso-kv/,
    );
  });
});
