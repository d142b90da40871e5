import { createHash, X509Certificate } from "node:crypto";
import { CertificateClient } from "@azure/keyvault-certificates";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeCa, makeLeaf } from "./certificates.js";
import { type FakeKeyVault, startFakeKeyVault, stubCredential } from "./fakeKeyVault.js";

const NOW = new Date();
const DAY = 86_400_000;
const ca = makeCa("Fake Vault Test CA", NOW);
const leaf = (days: number, serial: string) =>
  makeLeaf(ca, {
    names: ["www.contoso.com"],
    notBefore: new Date(NOW.getTime() - DAY),
    notAfter: new Date(NOW.getTime() + days * DAY),
    serial,
  }).cert;

let vault: FakeKeyVault;

beforeEach(async () => {
  vault = await startFakeKeyVault();
});
afterEach(async () => {
  await vault.close();
});

// The certificates API of the fake, through the real CertificateClient: if this breaks, the
// Key Vault verification tests mean nothing.
describe("fake Key Vault certificates", () => {
  it("answers the latest version as the real service does (cer, x5t, expiry, ids)", async () => {
    const old = leaf(10, "01");
    const current = leaf(90, "02");
    const first = vault.setCertificate("www-contoso", old);
    const second = vault.setCertificate("www-contoso", current);
    const client = new CertificateClient(vault.url, stubCredential, vault.certificateClientOptions);

    const got = await client.getCertificate("www-contoso");

    const x509 = new X509Certificate(Buffer.from(got.cer ?? new Uint8Array()));
    const der = new X509Certificate(current).raw;
    expect(x509.serialNumber).toBe("02");
    expect(got.name).toBe("www-contoso");
    expect(got.properties.version).toBe(second);
    expect(got.properties.id).toBe(`${vault.url}/certificates/www-contoso/${second}`);
    expect(got.properties.expiresOn?.getTime()).toBe(
      Math.floor(new Date(x509.validTo).getTime() / 1000) * 1000,
    );
    expect(got.properties.x509ThumbprintString).toBe(createHash("sha1").update(der).digest("hex"));
    expect(got.policy?.subject).toBe("CN=www.contoso.com");
    // A pinned version is still there.
    const pinned = await client.getCertificateVersion("www-contoso", first);
    expect(new X509Certificate(Buffer.from(pinned.cer ?? new Uint8Array())).serialNumber).toBe(
      "01",
    );
    expect(vault.certificateReads("www-contoso")).toBe(2);
    expect(vault.certificateVersions("www-contoso").map((v) => v.version)).toEqual([first, second]);
  });

  it("accepts DER as well as PEM", async () => {
    vault.setCertificate("der", new X509Certificate(leaf(30, "03")).raw);
    const client = new CertificateClient(vault.url, stubCredential, vault.certificateClientOptions);
    const got = await client.getCertificate("der");
    expect(new X509Certificate(Buffer.from(got.cer ?? new Uint8Array())).serialNumber).toBe("03");
  });

  it("answers 404 CertificateNotFound for a name it does not hold", async () => {
    const client = new CertificateClient(vault.url, stubCredential, vault.certificateClientOptions);
    const error = await client.getCertificate("nope").then(
      () => undefined,
      (e: unknown) => e as { statusCode?: number; code?: string; message?: string },
    );
    expect(error?.statusCode).toBe(404);
    expect(error?.code).toBe("CertificateNotFound");
    expect(error?.message).toContain("A certificate with (name/id) nope was not found");
  });

  it("records the bearer token it received, after the unauthenticated challenge", async () => {
    vault.setCertificate("c", leaf(30, "04"));
    const client = new CertificateClient(vault.url, stubCredential, vault.certificateClientOptions);
    await client.getCertificate("c");
    expect(vault.requests.map((r, i) => [r.path, vault.bearers[i]])).toEqual([
      ["/certificates/c/", undefined],
      ["/certificates/c/", "t"],
    ]);
    expect(vault.tokensSeen()).toEqual(["t"]);
  });

  it("refuses a token it was told to refuse with a 401 challenge", async () => {
    vault.setCertificate("c", leaf(30, "05"));
    vault.refuseToken("t");
    const client = new CertificateClient(vault.url, stubCredential, {
      ...vault.certificateClientOptions,
      retryOptions: { maxRetries: 0 },
    });
    const error = await client.getCertificate("c").then(
      () => undefined,
      (e: unknown) => e as { statusCode?: number },
    );
    expect(error?.statusCode).toBe(401);
  });

  it("applies an authorizedOnly fault to the request with the token, not the challenge", async () => {
    vault.setCertificate("c", leaf(30, "06"));
    vault.inject({ status: 403, authorizedOnly: true });
    const client = new CertificateClient(vault.url, stubCredential, vault.certificateClientOptions);
    const error = await client.getCertificate("c").then(
      () => undefined,
      (e: unknown) => e as { statusCode?: number },
    );
    expect(error?.statusCode).toBe(403);
    expect(vault.requests.map((r) => r.authorized)).toEqual([false, true]);
    // Used up: the next read is served.
    const got = await client.getCertificate("c");
    expect(got.name).toBe("c");
  });
});
