import { X509Certificate } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { TokenCache } from "../../shared/adapters/identity/tokenCache.js";
import { type KeyVaultProbeOptions, probeKeyVault } from "../../shared/app/probes.js";
import type { AccountPorts } from "../../shared/app/services.js";
import type { TokenSource } from "../../shared/core/ports/tokens.js";
import { parseConnectTo, resolveConnectTo } from "../../shared/core/verification/connectTo.js";
import { DAY_MS } from "../../shared/lib/time.js";
import {
  type Hosting,
  type Simulator,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../../sim/index.js";
import { leaksIn, runtimeFor } from "../support/app.js";
import { type FakeKeyVault, startFakeKeyVault } from "../support/fakeKeyVault.js";

/**
 * The simulator's Key Vault (sim/hosting/vault.ts) read the way certsched reads a customer's
 * vault: through the real CertificateClient, certsched's vault token from the simulator's
 * identity provider, and CERTSCHED_VERIFY_CONNECT_TO, over real HTTPS on loopback.
 */

const KV = "Cloud Key Vault + DNS";
/** Whole seconds: X.509 keeps no milliseconds. */
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const seconds = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);

let sim: Simulator | undefined;
let runtime: AccountPorts | undefined;
let fake: FakeKeyVault | undefined;
afterEach(async () => {
  await runtime?.close();
  await sim?.close();
  await fake?.close();
  sim = runtime = fake = undefined;
});

async function vaultSim(): Promise<{ sim: Simulator; hosting: Hosting; runtime: AccountPorts }> {
  sim = await startSimulator({
    hosting: {},
    certificates: [
      {
        certificateName: "www-app",
        rootDomain: "www.vault.test",
        expiryDate: new Date(NOW.getTime() + 30 * DAY_MS),
      },
      {
        certificateName: "kv-cert",
        rootDomain: "api.vault.test",
        target: KV,
        keyVaultName: "kv-x",
        expiryDate: new Date(NOW.getTime() + 40 * DAY_MS + 123),
      },
    ],
  });
  runtime = runtimeFor(sim);
  return { sim, hosting: sim.hosting as Hosting, runtime };
}

function probeOptions(rt: AccountPorts, hosting: Hosting, connectTo: string): KeyVaultProbeOptions {
  return {
    tokens: rt.tokens,
    vaultResource: rt.settings.vaultResource,
    settings: {
      warnDays: 14,
      windowMs: 7_200_000,
      timeoutMs: 5_000,
      connectTo: parseConnectTo(connectTo),
    },
    now: () => NOW,
    seam: { clientOptions: { tlsOptions: { ca: hosting.caPem } } },
  };
}

const TARGET = { keyVaultName: "kv-x", certificateName: "kv-cert" } as const;

describe("the simulator's vault holds its Key Vault certificates", () => {
  it("at start, each Key Vault sample certificate has one current version: the record's dates, the CA's issuer, its domain", async () => {
    const now = new Date();
    sim = await startSimulator({ hosting: {}, certificates: sampleCertificates(now) });
    const vault = (sim.hosting as Hosting).vault;

    const samples = sim.certificates();
    const inVault = samples.filter((c) => c.target === KV);
    expect(inVault.map((c) => c.certificateName).sort()).toEqual([
      "api-contoso-com",
      "docs-fabrikam-com",
      "intranet-contoso-com",
      "mail-fabrikam-com",
      "vault-fabrikam-com",
    ]);
    for (const cert of inVault) {
      const versions = vault.versions("kv-certsched", cert.certificateName);
      expect(versions).toHaveLength(1);
      const x509 = new X509Certificate(versions[0]?.der ?? Buffer.alloc(0));
      expect(new Date(x509.validTo)).toEqual(seconds(cert.expiryDate));
      expect(new Date(x509.validFrom)).toEqual(seconds(cert.issueDate));
      expect(x509.subjectAltName).toBe(`DNS:${cert.rootDomain}`);
      expect(x509.issuer).toContain("O=certsched simulator");
      expect(x509.checkIssued(new X509Certificate((sim.hosting as Hosting).caPem))).toBe(true);
    }
    // App Service certificates are served by the hosting endpoint, not held in the vault.
    expect(vault.versions("kv-certsched", "www-contoso-com")).toEqual([]);
  });

  it("sandbox settings route each vault host to the vault first, port 80 to the challenge listener, every other name to the hosting endpoint", async () => {
    sim = await startSimulator({ hosting: {}, certificates: sampleCertificates(new Date()) });
    const hosting = sim.hosting as Hosting;

    const text = sandboxSettings(sim).CERTSCHED_VERIFY_CONNECT_TO;
    const rules = parseConnectTo(text);

    expect(text).toBe(
      `kv-certsched.vault.azure.net:443:127.0.0.1:${hosting.vault.port},:80:127.0.0.1:${hosting.challenge.port},::127.0.0.1:${hosting.port}`,
    );
    // Port 80 (preflight's HTTP challenge) reaches the challenge listener, not the TLS endpoint.
    expect(resolveConnectTo(rules, "www.contoso.com", 80)).toEqual({
      host: "127.0.0.1",
      port: hosting.challenge.port,
    });
    expect(resolveConnectTo(rules, "KV-certsched.vault.azure.net", 443)).toEqual({
      host: "127.0.0.1",
      port: hosting.vault.port,
    });
    expect(resolveConnectTo(rules, "www.contoso.com", 443)).toEqual({
      host: "127.0.0.1",
      port: hosting.port,
    });
    // A vault the sandbox does not know still stays on loopback (its handshake there fails).
    expect(resolveConnectTo(rules, "other-kv.vault.azure.net", 443)).toEqual({
      host: "127.0.0.1",
      port: hosting.port,
    });
    expect(hosting.vault.port).not.toBe(hosting.port);
  });
});

describe("reading the simulator's vault through CERTSCHED_VERIFY_CONNECT_TO", () => {
  it("the vault host is connected to on loopback: the vault sees its own host name as SNI and Host, and a simulator-issued token", async () => {
    const { hosting, runtime: rt, sim: s } = await vaultSim();
    const connectTo = `kv-x.vault.azure.net:443:127.0.0.1:${hosting.vault.port}`;

    const result = await probeKeyVault(TARGET, probeOptions(rt, hosting, connectTo));

    expect(result).toMatchObject({
      domain: "kv-x/kv-cert",
      certificateName: "kv-cert",
      source: "keyvault",
      status: "ok",
      daysLeft: 40,
      servedNotAfter: seconds(new Date(NOW.getTime() + 40 * DAY_MS + 123)).toISOString(),
    });
    expect(result.issuer).toContain("O=certsched simulator");
    const reads = hosting.vault.requests.filter((r) => r.path.startsWith("/certificates/kv-cert"));
    // The SDK's challenge first (no token), then the read with certsched's vault token.
    expect(reads.map((r) => r.authorized)).toEqual([false, true]);
    for (const r of reads) {
      expect(r.host).toBe("kv-x.vault.azure.net");
      expect(r.servername).toBe("kv-x.vault.azure.net");
    }
    expect(leaksIn(s, [JSON.stringify(result)])).toEqual([]);
  });

  it("the name check stays with the vault's host: a server whose certificate does not cover it is never sent a request", async () => {
    const { runtime: rt, hosting } = await vaultSim();
    fake = await startFakeKeyVault();
    const port = new URL(fake.url).port;
    const options = probeOptions(rt, hosting, `kv-x.vault.azure.net:443:127.0.0.1:${port}`);

    const result = await probeKeyVault(TARGET, {
      ...options,
      seam: { clientOptions: fake.certificateClientOptions },
    });

    expect(result.status).toBe("unreachable");
    expect(result.detail).toMatch(/kv-x\.vault\.azure\.net/);
    expect(result.detail).toMatch(/altnames|ERR_TLS_CERT_ALTNAME_INVALID/i);
    // Not one request, so no token, reached the server that is not the vault.
    expect(fake.requests).toEqual([]);
  });

  it("a vault token the simulator's identity provider did not issue is refused (401) and named as such, never quoted", async () => {
    const { hosting, runtime: rt } = await vaultSim();
    const forged = "forged-vault-token-5c1e9d2b7a43";
    const source: TokenSource = {
      kind: "client-secret",
      getToken: async () => ({ token: forged, expiresOnMs: Date.now() + 3_600_000 }),
    };
    const options = probeOptions(
      rt,
      hosting,
      `kv-x.vault.azure.net:443:127.0.0.1:${hosting.vault.port}`,
    );

    const result = await probeKeyVault(TARGET, { ...options, tokens: new TokenCache(source) });

    expect(result.status).toBe("unreachable");
    expect(result.detail).toContain("refused certsched's vault token (401 Unauthorized)");
    expect(JSON.stringify(result)).not.toContain(forged);
  });

  it("answers 404 CertificateNotFound for a name the vault does not hold", async () => {
    const { hosting, runtime: rt } = await vaultSim();
    const options = probeOptions(
      rt,
      hosting,
      `kv-x.vault.azure.net:443:127.0.0.1:${hosting.vault.port}`,
    );

    const result = await probeKeyVault({ ...TARGET, keyVaultCertificateName: "nope" }, options);

    expect(result.status).toBe("unreachable");
    expect(result.detail).toBe(
      "vault kv-x holds no certificate named nope (404 CertificateNotFound): check keyVaultCertificateName, and whether the certificate was deleted",
    );
  });

  it("a vault the sandbox's connect-to does not name lands on the hosting endpoint: the handshake fails, no request, no token anywhere", async () => {
    const { hosting, runtime: rt, sim: s } = await vaultSim();
    const connectTo = sandboxSettings(s).CERTSCHED_VERIFY_CONNECT_TO ?? "";
    expect(connectTo).toContain(`kv-x.vault.azure.net:443:127.0.0.1:${hosting.vault.port}`);

    const result = await probeKeyVault(
      { keyVaultName: "kv-elsewhere", certificateName: "kv-cert" },
      probeOptions(rt, hosting, connectTo),
    );

    expect(result.status).toBe("unreachable");
    expect(result.detail).toContain(`at kv-elsewhere.vault.azure.net`);
    // The hosting endpoint has no certificate for the name; the vault never heard of it.
    expect(hosting.vault.requests).toEqual([]);
    expect(leaksIn(s, [JSON.stringify(result)])).toEqual([]);
  });

  it("a Key Vault certificate added after start has its first version at its first read", async () => {
    const { hosting, runtime: rt, sim: s } = await vaultSim();
    const expiry = new Date(NOW.getTime() + 20 * DAY_MS);
    s.addCertificate({
      certificateName: "kv-later",
      rootDomain: "later.vault.test",
      target: KV,
      keyVaultName: "kv-x",
      expiryDate: expiry,
    });
    expect(hosting.vault.versions("kv-x", "kv-later")).toEqual([]);
    const connectTo = `kv-x.vault.azure.net:443:127.0.0.1:${hosting.vault.port}`;

    const result = await probeKeyVault(
      { keyVaultName: "kv-x", certificateName: "kv-later" },
      probeOptions(rt, hosting, connectTo),
    );

    expect(result).toMatchObject({
      status: "ok",
      daysLeft: 20,
      servedNotAfter: seconds(expiry).toISOString(),
    });
    expect(hosting.vault.versions("kv-x", "kv-later")).toHaveLength(1);
  });
});
