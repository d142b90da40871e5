import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createSecretClientReader } from "../../../../shared/adapters/identity/secretClientReader.js";
import {
  createSecretStore,
  type SecretStoreOptions,
} from "../../../../shared/adapters/identity/secretStore.js";
import { withClientSecretRetry } from "../../../../shared/adapters/identity/withFreshClientSecret.js";
import { TokenError } from "../../../../shared/lib/errors.js";
import {
  type FakeKeyVault,
  startFakeKeyVault,
  stubCredential,
} from "../../../support/fakeKeyVault.js";

const SECRET_NAME = "certsched-client-secret";
const OLD_SECRET = "old-client-secret-VALUE";
const NEW_SECRET = "new-client-secret-VALUE";

let vault: FakeKeyVault;

beforeEach(async () => {
  vault = await startFakeKeyVault({ secrets: { [SECRET_NAME]: OLD_SECRET } });
});
afterEach(async () => {
  await vault.close();
});

function storeFor(overrides: Partial<SecretStoreOptions> = {}) {
  return createSecretStore({
    vaultUrl: vault.url,
    apiKeySecretName: "certsched-api-key",
    clientSecretSecretName: SECRET_NAME,
    direct: {},
    ttlMs: 10 * 60_000,
    // A frozen clock: the cache never expires by itself in these tests.
    now: () => new Date("2025-01-01T00:00:00Z"),
    createReader: (url) => createSecretClientReader(url, stubCredential, vault.clientOptions),
    ...overrides,
  });
}

/** A fake identity provider that accepts one secret and refuses others with `aadsts`. */
function identityProvider(accepted: string, aadsts = 7000222) {
  return vi.fn(async (secret: string) => {
    if (secret === accepted) return "token";
    throw new TokenError("TOKEN_REFUSED", `AADSTS${aadsts}: the client secret was refused`, {
      resource: "https://management.core.windows.net/",
      aadsts,
      status: 401,
    });
  });
}

describe("withClientSecretRetry", () => {
  it.each([7000222, 7000215])(
    "re-reads the vault once on AADSTS%i and succeeds with the rotated secret",
    async (aadsts) => {
      const store = storeFor();
      await store.clientSecret();
      vault.setSecret(SECRET_NAME, NEW_SECRET);
      const fn = identityProvider(NEW_SECRET, aadsts);

      await expect(withClientSecretRetry(store, fn)).resolves.toBe("token");

      expect(fn.mock.calls).toEqual([[OLD_SECRET], [NEW_SECRET]]);
      expect(vault.reads(SECRET_NAME)).toBe(2);
      // Later callers get the rotated secret from the cache.
      expect(await store.clientSecret()).toBe(NEW_SECRET);
      expect(vault.reads(SECRET_NAME)).toBe(2);
    },
  );

  it("does not loop: a refusal of the rotated secret is rethrown", async () => {
    const store = storeFor();
    await store.clientSecret();
    vault.setSecret(SECRET_NAME, NEW_SECRET);
    const fn = identityProvider("a-secret-nobody-has");

    const error = await withClientSecretRetry(store, fn).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TokenError);
    expect((error as TokenError).aadsts).toBe(7000222);
    expect(fn.mock.calls).toEqual([[OLD_SECRET], [NEW_SECRET]]);
    expect(vault.reads(SECRET_NAME)).toBe(2);
  });

  it("rethrows without a second try when the vault still holds the refused secret", async () => {
    const store = storeFor();
    const fn = identityProvider(NEW_SECRET);

    await expect(withClientSecretRetry(store, fn)).rejects.toBeInstanceOf(TokenError);

    expect(fn).toHaveBeenCalledTimes(1);
    expect(vault.reads(SECRET_NAME)).toBe(2);
  });

  it("rethrows other failures without touching the vault again", async () => {
    const store = storeFor();
    const unknownApp = identityProvider(NEW_SECRET, 700016);
    const network = vi.fn(async () => {
      throw new Error("socket hang up");
    });

    await expect(withClientSecretRetry(store, unknownApp)).rejects.toMatchObject({
      aadsts: 700016,
    });
    await expect(withClientSecretRetry(store, network)).rejects.toThrow("socket hang up");

    expect(unknownApp).toHaveBeenCalledTimes(1);
    expect(vault.reads(SECRET_NAME)).toBe(1);
  });

  it("does not re-read a directly configured secret", async () => {
    const store = storeFor({ direct: { clientSecret: OLD_SECRET } });
    vault.setSecret(SECRET_NAME, NEW_SECRET);
    const fn = identityProvider(NEW_SECRET);

    await expect(withClientSecretRetry(store, fn)).rejects.toBeInstanceOf(TokenError);

    expect(fn).toHaveBeenCalledTimes(1);
    expect(vault.requests).toEqual([]);
  });

  it("reports the refusal, not the vault, when the re-read fails", async () => {
    const store = storeFor();
    await store.clientSecret();
    vault.inject({ status: 500 });
    const fn = identityProvider(NEW_SECRET);

    const error = await withClientSecretRetry(store, fn).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TokenError);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
