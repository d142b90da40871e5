import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SINGLE_ACCOUNT_SETTINGS } from "../../../../shared/app/config/accounts.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { settingsOf } from "../../../../shared/core/accounts.js";
import type { Env } from "../../../../shared/core/settings.js";
import { ConfigError, type Problem } from "../../../../shared/lib/errors.js";

const API_KEY_A = "api-key-of-account-a-0001";
const SECRET_A = "client-secret-of-account-a-0001";
const API_KEY_B = "api-key-of-account-b-0002";

function accountA(extra: Record<string, unknown> = {}) {
  return {
    name: "contoso",
    baseUrl: "https://certs.contoso.example",
    subscription: "sub-contoso",
    apiKey: API_KEY_A,
    tenantId: "tenant-contoso",
    clientId: "client-contoso",
    clientSecret: SECRET_A,
    ...extra,
  };
}

function accountB(extra: Record<string, unknown> = {}) {
  return {
    name: "fabrikam-eu",
    baseUrl: "https://certs.fabrikam.example",
    subscription: "sub-fabrikam",
    subscriptionId: "pub-fabrikam",
    apiKey: API_KEY_B,
    identity: "managed",
    ...extra,
  };
}

function env(accounts: unknown, extra: Env = {}): Env {
  return { CERTSCHED_ACCOUNTS: JSON.stringify(accounts), ...extra };
}

function problems(value: Env): Problem[] {
  try {
    loadSettings(value);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  }
  throw new Error("expected a ConfigError");
}

describe("declared accounts (docs/contracts/accounts.md)", () => {
  it("reads every account, in order, with the contract's defaults", () => {
    const s = loadSettings(env([accountA(), accountB()]));
    expect(s.accountsDeclared).toBe(true);
    expect(s.accounts.map((a) => a.name)).toEqual(["contoso", "fabrikam-eu"]);
    const [a, b] = s.accounts;
    expect(a).toMatchObject({
      baseUrl: "https://certs.contoso.example",
      publicBaseUrl: "https://certs.contoso.example/public",
      subscription: "sub-contoso",
      subscriptionId: "sub-contoso",
      cloudCredential: "client-secret",
      tokenUrl: "https://login.microsoftonline.com",
      managementResource: "https://management.core.windows.net/",
      vaultResource: "https://vault.azure.net",
    });
    expect(b).toMatchObject({
      subscriptionId: "pub-fabrikam",
      cloudCredential: "managed-identity",
    });
    // The app's settings carry the first account's service; an account's view its own.
    expect(s.account).toBe("contoso");
    expect(s.baseUrl).toBe("https://certs.contoso.example");
    if (!b) throw new Error("two accounts expected");
    const viewB = settingsOf(s, b);
    expect(viewB).toMatchObject({
      account: "fabrikam-eu",
      baseUrl: "https://certs.fabrikam.example",
      apiKey: API_KEY_B,
      tenantId: undefined,
      clientSecret: undefined,
    });
  });

  it("without accounts there is one, 'default', from the single-account settings", () => {
    const s = loadSettings({
      CERTSCHED_BASE_URL: "https://certs.example.com",
      CERTSCHED_SUBSCRIPTION: "sub-1",
      CERTSCHED_TENANT_ID: "t",
      CERTSCHED_CLIENT_ID: "c",
      CERTSCHED_CLIENT_SECRET: SECRET_A,
    });
    expect(s.accountsDeclared).toBe(false);
    expect(s.account).toBe("default");
    expect(s.accounts).toEqual([
      expect.objectContaining({ name: "default", baseUrl: "https://certs.example.com" }),
    ]);
  });

  it("reads the same JSON from CERTSCHED_ACCOUNTS_FILE; both settings at once is an error", () => {
    const dir = mkdtempSync(join(tmpdir(), "certsched-accounts-"));
    const file = join(dir, "accounts.json");
    writeFileSync(file, JSON.stringify([accountA(), accountB()]));
    expect(loadSettings({ CERTSCHED_ACCOUNTS_FILE: file }).accounts).toHaveLength(2);
    expect(problems({ ...env([accountA()]), CERTSCHED_ACCOUNTS_FILE: file })).toEqual([
      expect.objectContaining({
        name: "CERTSCHED_ACCOUNTS",
        message: expect.stringContaining("both set"),
      }),
    ]);
    expect(problems({ CERTSCHED_ACCOUNTS_FILE: join(dir, "missing.json") })).toEqual([
      expect.objectContaining({
        name: "CERTSCHED_ACCOUNTS_FILE",
        message: expect.stringContaining("does not exist"),
      }),
    ]);
  });

  it("refuses each single-account service setting beside declared accounts, by name", () => {
    for (const name of SINGLE_ACCOUNT_SETTINGS) {
      const value = name.endsWith("_URL") ? "https://x.example" : "value-long-enough-123";
      const found = problems(env([accountA()], { [name]: value }));
      expect(found.map((p) => p.name)).toEqual([name]);
      expect(found[0]?.message).toMatch(/must be unset when accounts are declared/);
    }
  });

  it("reports every problem of every account together, naming account and field, echoing no value", () => {
    const found = problems(
      env([
        accountA({ baseUrl: "http://certs.contoso.example", extra: 1 }),
        { name: "Bad_Name", apiKey: "zq7x" },
        accountB({ name: "contoso", apiKeySecret: "vault-name" }),
        accountB({ name: "ok-1", apiKey: undefined }),
        accountA({ name: "ok-2", clientSecret: undefined, tenantId: undefined }),
      ]),
    );
    const names = found.map((p) => p.name);
    expect(names).toContain('CERTSCHED_ACCOUNTS[0] (account "contoso")');
    expect(
      found.find((p) => p.name === 'CERTSCHED_ACCOUNTS[0] (account "contoso")')?.message,
    ).toMatch(/unknown field.*extra/);
    expect(names).toContain('CERTSCHED_ACCOUNTS[0] (account "contoso").baseUrl');
    expect(names).toContain("CERTSCHED_ACCOUNTS[1].name");
    expect(names).toContain("CERTSCHED_ACCOUNTS[1].baseUrl");
    expect(names).toContain("CERTSCHED_ACCOUNTS[1].apiKey");
    expect(names).toContain('CERTSCHED_ACCOUNTS[2] (account "contoso").name');
    expect(names).toContain('CERTSCHED_ACCOUNTS[3] (account "ok-1").apiKey');
    expect(names).toContain('CERTSCHED_ACCOUNTS[4] (account "ok-2").tenantId');
    expect(names).toContain('CERTSCHED_ACCOUNTS[4] (account "ok-2").clientSecret');
    const text = JSON.stringify(found);
    for (const secret of [API_KEY_A, SECRET_A, API_KEY_B, "zq7x"])
      expect(text).not.toContain(secret);
  });

  it("a secret given by name needs the vault; both forms of one secret is an error", () => {
    expect(
      problems(env([accountA({ apiKey: undefined, apiKeySecret: "contoso-api-key" })])),
    ).toEqual([
      expect.objectContaining({
        name: 'CERTSCHED_ACCOUNTS[0] (account "contoso").apiKeySecret',
        message: expect.stringContaining("CERTSCHED_KEY_VAULT_URL"),
      }),
    ]);
    const s = loadSettings(
      env([accountA({ apiKey: undefined, apiKeySecret: "contoso-api-key" })], {
        CERTSCHED_KEY_VAULT_URL: "https://kv.vault.azure.net",
      }),
    );
    expect(s.accounts[0]).toMatchObject({ apiKey: undefined, apiKeySecretName: "contoso-api-key" });
    expect(problems(env([accountA({ clientSecretSecret: "x" })]))).toEqual([
      expect.objectContaining({
        name: 'CERTSCHED_ACCOUNTS[0] (account "contoso").clientSecret',
        message: expect.stringContaining("both set"),
      }),
    ]);
  });

  it("refuses JSON that is not a non-empty array without quoting it", () => {
    const secretish = "looks-like-a-secret-9876543210";
    for (const text of [`[{"name": "${secretish}`, "{}", "[]", "42"]) {
      const found = problems({ CERTSCHED_ACCOUNTS: text });
      expect(found.map((p) => p.name)).toEqual(["CERTSCHED_ACCOUNTS"]);
      expect(JSON.stringify(found)).not.toContain(secretish);
    }
    expect(problems(env([42]))).toEqual([
      expect.objectContaining({
        name: "CERTSCHED_ACCOUNTS[0]",
        message: "must be an account object",
      }),
    ]);
  });

  it("takes names of 1 to 40 of a-z, 0-9 and - only", () => {
    expect(loadSettings(env([accountA({ name: "a".repeat(40) })])).account).toBe("a".repeat(40));
    for (const name of ["", "a".repeat(41), "Upper", "under_score", "dot.ted", "spa ce"]) {
      expect(problems(env([accountA({ name })])).map((p) => p.name)).toEqual([
        "CERTSCHED_ACCOUNTS[0].name",
      ]);
    }
  });

  it("a per-account quota overrides CERTSCHED_SERVICE_QUOTA, which is every account's default", () => {
    const s = loadSettings(
      env([accountA({ quota: "10/1d" }), accountB()], { CERTSCHED_SERVICE_QUOTA: "100/7d" }),
    );
    expect(s.accounts.map((a) => a.serviceQuota?.requests)).toEqual([10, 100]);
  });
});
