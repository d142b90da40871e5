import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSecretClientReader } from "../../../../shared/adapters/identity/secretClientReader.js";
import {
  createSecretStore,
  type SecretStoreOptions,
} from "../../../../shared/adapters/identity/secretStore.js";
import { CertschedError, UpstreamError } from "../../../../shared/lib/errors.js";
import { fakeClock } from "../../../support/clock.js";
import {
  type FakeKeyVault,
  startFakeKeyVault,
  stubCredential,
} from "../../../support/fakeKeyVault.js";

const API_KEY = "api-key-VALUE-7c1e";
const CLIENT_SECRET = "client-secret-VALUE-93ab";
const TEN_MINUTES = 10 * 60_000;
/** Where the fake clocks of this suite start. */
const START = "2025-01-01T00:00:00Z";

let vault: FakeKeyVault;

// A vault per test (the certificate is made once per process): request logs, read counts and
// injected faults never leak from one test into the next.
beforeEach(async () => {
  vault = await startFakeKeyVault({
    secrets: { "certsched-api-key": API_KEY, "certsched-client-secret": CLIENT_SECRET },
  });
});
afterEach(async () => {
  await vault.close();
});

/** A store reading `target` through the REAL SecretClient. */
function storeFor(target: FakeKeyVault, overrides: Partial<SecretStoreOptions> = {}) {
  return createSecretStore({
    vaultUrl: target.url,
    apiKeySecretName: "certsched-api-key",
    clientSecretSecretName: "certsched-client-secret",
    direct: {},
    ttlMs: TEN_MINUTES,
    now: () => new Date(),
    createReader: (url) => createSecretClientReader(url, stubCredential, target.clientOptions),
    ...overrides,
  });
}

async function secretError(promise: Promise<unknown>): Promise<CertschedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CertschedError);
  return error as CertschedError;
}

/** Everything about an error a log line could show: message, JSON fields, stack. */
function everythingShown(error: unknown): string {
  return error instanceof Error
    ? [error.message, error.stack ?? "", JSON.stringify(error), String(error.cause)].join("\n")
    : String(error);
}

describe("createSecretStore with Key Vault", () => {
  it("reads both secrets from the vault", async () => {
    const store = storeFor(vault);

    expect(await store.apiKey()).toBe(API_KEY);
    expect(await store.clientSecret()).toBe(CLIENT_SECRET);
    expect(store.describe()).toEqual({ apiKey: "key-vault", clientSecret: "key-vault" });
  });

  it("answers the 401 challenge, then reads with a bearer token", async () => {
    await storeFor(vault).apiKey();

    const seen = vault.requests;
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual({
      method: "GET",
      path: "/secrets/certsched-api-key/",
      authorized: false,
    });
    expect(seen[1]).toEqual({
      method: "GET",
      path: "/secrets/certsched-api-key/",
      authorized: true,
    });
  });

  it("never calls the vault when direct values are given", async () => {
    const store = storeFor(vault, {
      direct: { apiKey: "direct-api", clientSecret: "direct-secret" },
    });

    expect(await store.apiKey()).toBe("direct-api");
    expect(await store.clientSecret({ fresh: true })).toBe("direct-secret");
    expect(store.describe()).toEqual({ apiKey: "direct", clientSecret: "direct" });
    expect(vault.requests).toEqual([]);
  });

  it("treats an empty direct value as not set", async () => {
    const store = storeFor(vault, { direct: { apiKey: "" } });

    expect(await store.apiKey()).toBe(API_KEY);
    expect(store.describe().apiKey).toBe("key-vault");
  });

  it("reuses a value within the TTL and picks up a rotation after it", async () => {
    const clock = fakeClock(START);
    const store = storeFor(vault, { now: clock.now });

    expect(await store.apiKey()).toBe(API_KEY);
    vault.setSecret("certsched-api-key", "rotated-api-key");
    clock.advance(TEN_MINUTES - 1);
    expect(await store.apiKey()).toBe(API_KEY);
    expect(vault.reads("certsched-api-key")).toBe(1);

    clock.advance(1);
    expect(await store.apiKey()).toBe("rotated-api-key");
    expect(vault.reads("certsched-api-key")).toBe(2);
  });

  it("reads another secret by its name (the CT API key), cached per name for the TTL", async () => {
    const clock = fakeClock(START);
    vault.setSecret("certsched-ct-api-key", "ct-key-VALUE-51f0");
    const store = storeFor(vault, { now: clock.now });

    const both = await Promise.all([store.named("certsched-ct-api-key"), store.apiKey()]);
    expect(both).toEqual(["ct-key-VALUE-51f0", API_KEY]);
    vault.setSecret("certsched-ct-api-key", "ct-key-ROTATED-51f0");
    clock.advance(TEN_MINUTES - 1);
    expect(await store.named("certsched-ct-api-key")).toBe("ct-key-VALUE-51f0");
    clock.advance(1);
    expect(await store.named("certsched-ct-api-key")).toBe("ct-key-ROTATED-51f0");
    expect(vault.reads("certsched-ct-api-key")).toBe(2);
    const missing = await secretError(store.named("certsched-nothing-here"));
    expect(missing.code).toBe("SECRET_UNAVAILABLE");
    expect(missing.message).toContain("certsched-nothing-here");
  });

  it("without a vault, a named secret is unavailable, naming the vault setting", async () => {
    const error = await secretError(
      storeFor(vault, { vaultUrl: undefined }).named("certsched-ct-api-key"),
    );
    expect(error.message).toMatch(/CERTSCHED_KEY_VAULT_URL is not configured/);
    expect(vault.requests).toEqual([]);
  });

  it("shares one read between concurrent callers", async () => {
    const store = storeFor(vault);

    const values = await Promise.all([store.apiKey(), store.apiKey(), store.apiKey()]);

    expect(values).toEqual([API_KEY, API_KEY, API_KEY]);
    expect(vault.reads("certsched-api-key")).toBe(1);
  });

  it("bypasses the cache for a fresh client secret", async () => {
    const store = storeFor(vault, { now: fakeClock(START).now });
    await store.clientSecret();
    vault.setSecret("certsched-client-secret", "rotated-client-secret");

    expect(await store.clientSecret()).toBe(CLIENT_SECRET);
    expect(await store.clientSecret({ fresh: true })).toBe("rotated-client-secret");
    // The fresh value replaces the cached one.
    expect(await store.clientSecret()).toBe("rotated-client-secret");
    expect(vault.reads("certsched-client-secret")).toBe(2);
  });

  it("does not cache a failed read", async () => {
    const store = storeFor(vault);
    vault.inject({ status: 503 });

    await secretError(store.apiKey());
    expect(await store.apiKey()).toBe(API_KEY);
  });
});

describe("createSecretStore failures", () => {
  it("names both settings when neither a value nor a vault is configured", async () => {
    const store = storeFor(vault, { vaultUrl: undefined });

    const apiKey = await secretError(store.apiKey());
    const clientSecret = await secretError(store.clientSecret());

    expect(apiKey.code).toBe("SECRET_UNAVAILABLE");
    expect(apiKey.message).toContain("CERTSCHED_API_KEY is not set");
    expect(apiKey.message).toContain("CERTSCHED_KEY_VAULT_URL is not configured");
    expect(clientSecret.message).toContain("CERTSCHED_CLIENT_SECRET is not set");
    expect(store.describe()).toEqual({ apiKey: "missing", clientSecret: "missing" });
  });

  const cases: Array<{
    name: string;
    arrange: (v: FakeKeyVault) => void;
    expected: { status?: number; retriable: boolean; text: RegExp };
  }> = [
    {
      name: "a secret missing from the vault (404)",
      arrange: (v) => v.deleteSecret("certsched-api-key"),
      expected: { status: 404, retriable: false, text: /HTTP 404 SecretNotFound/ },
    },
    {
      name: "a forbidden read (403)",
      arrange: (v) =>
        v.inject({
          status: 403,
          body: JSON.stringify({ error: { code: "Forbidden", message: "no get permission" } }),
        }),
      expected: { status: 403, retriable: false, text: /HTTP 403 Forbidden.*Secrets User/ },
    },
    {
      name: "the vault failing (500)",
      arrange: (v) => v.inject({ status: 500 }),
      expected: { status: 500, retriable: true, text: /HTTP 500/ },
    },
    {
      name: "a reset connection",
      arrange: (v) => v.inject({ reset: true }),
      expected: { retriable: true, text: /no response \(ECONNRESET\)/ },
    },
    {
      name: "a disabled secret",
      arrange: (v) => v.setSecret("certsched-api-key", "disabled-VALUE", { enabled: false }),
      expected: { status: 403, retriable: false, text: /HTTP 403 Forbidden/ },
    },
    {
      // One byte over the bound: a secret value padded to 1 MiB plus what its JSON adds.
      name: "an answer longer than 1 MiB (no vault sends one: a secret is at most 25 KiB)",
      arrange: (v) =>
        v.inject({ status: 200, body: JSON.stringify({ value: "v".repeat(1024 * 1024) }) }),
      expected: {
        status: 200,
        retriable: false,
        text: /its answer \(HTTP 200\) is longer than 1 MiB, all certsched reads of one answer/,
      },
    },
    {
      name: "an empty secret",
      arrange: (v) => v.setSecret("certsched-api-key", ""),
      expected: { retriable: false, text: /is empty/ },
    },
  ];

  it.each(cases)(
    "reports $name as SECRET_UNAVAILABLE naming the secret",
    async ({ arrange, expected }) => {
      arrange(vault);

      const error = await secretError(storeFor(vault).apiKey());

      expect(error.code).toBe("SECRET_UNAVAILABLE");
      expect(error.retriable).toBe(expected.retriable);
      expect(error.message).toContain('"certsched-api-key"');
      expect(error.message).toContain(new URL(vault.url).host);
      expect(error.message).toMatch(expected.text);
      if (expected.status !== undefined) {
        expect(error).toBeInstanceOf(UpstreamError);
        expect((error as UpstreamError).status).toBe(expected.status);
      }
      for (const value of [API_KEY, CLIENT_SECRET, "disabled-VALUE"]) {
        expect(everythingShown(error)).not.toContain(value);
      }
    },
  );

  it("reports a vault that is not listening as retriable SECRET_UNAVAILABLE", async () => {
    const gone = await startFakeKeyVault({ secrets: { "certsched-api-key": API_KEY } });
    await gone.close();

    const error = await secretError(storeFor(gone).apiKey());

    expect(error.code).toBe("SECRET_UNAVAILABLE");
    expect(error.retriable).toBe(true);
    expect(error.message).toContain('"certsched-api-key"');
    expect(error.message).toContain("ECONNREFUSED");
    expect(everythingShown(error)).not.toContain(API_KEY);
  });

  it("reports a reader that cannot be built, and tries again on the next call", async () => {
    let attempts = 0;
    const store = storeFor(vault, {
      createReader: (url) => {
        attempts += 1;
        if (attempts === 1) throw new Error("SDK failed to load");
        return createSecretClientReader(url, stubCredential, vault.clientOptions);
      },
    });

    const error = await secretError(store.apiKey());
    expect(error.message).toContain("CERTSCHED_KEY_VAULT_URL");
    expect(error.message).toContain("SDK failed to load");
    expect(await store.apiKey()).toBe(API_KEY);
  });
});
