import { afterAll, describe, expect, it } from "vitest";
import {
  requireSubscription,
  requireSubscriptionId,
} from "../../../../shared/adapters/service/requests.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import type { Env } from "../../../../shared/core/settings.js";
import { OPEN_CALENDAR } from "../../../../shared/core/windows/calendar.js";
import { ConfigError } from "../../../../shared/lib/errors.js";
import { parseDuration } from "../../../../shared/lib/time.js";
import { isLoopbackHost } from "../../../../shared/lib/url.js";
import {
  expectNoSecretLeaks,
  recordError,
  textsOf,
  watchSecret,
} from "../../../support/simulatorServices.js";

/** The smallest valid environment for the default client-secret flow. */
const BASE: Env = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "portal-subscription",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

function configError(env: Env): ConfigError {
  try {
    loadSettings(env);
  } catch (error) {
    recordError(error);
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected loadSettings to throw a ConfigError");
}

function problemNames(env: Env): string[] {
  return configError(env)
    .problems.map((p) => p.name)
    .sort();
}

afterAll(() => expectNoSecretLeaks());

describe("loadSettings: defaults", () => {
  it("fills every default from the minimal environment", () => {
    const s = loadSettings(BASE);

    expect(s).toEqual({
      verify: expect.any(Function),
      preflight: expect.any(Function),
      ari: expect.any(Function),
      transparency: expect.any(Function),
      estate: expect.any(Function),
      account: "default",
      accounts: [
        expect.objectContaining({ name: "default", baseUrl: "https://certs.example.com" }),
      ],
      accountsDeclared: false,
      accountConcurrency: 4,
      deadAccountDays: 3,
      managedIdentityClientId: undefined,
      baseUrl: "https://certs.example.com",
      publicBaseUrl: "https://certs.example.com/public",
      subscription: "portal-subscription",
      subscriptionId: "portal-subscription",
      apiKey: undefined,
      publicAuth: "none",
      tenantId: "tenant-1",
      clientId: "client-1",
      clientSecret: "client-secret-value-1",
      cloudCredential: "client-secret",
      tokenUrl: "https://login.microsoftonline.com",
      managementResource: "https://management.core.windows.net/",
      vaultResource: "https://vault.azure.net",
      keyVaultUrl: undefined,
      apiKeySecretName: "certsched-api-key",
      clientSecretSecretName: "certsched-client-secret",
      secretCacheTtlMs: 10 * 60_000,
      renewalConcurrency: 8,
      renewalGraceMs: 2 * 3_600_000,
      claimLeaseMs: 60_000,
      dryRun: false,
      httpTimeoutMs: 30_000,
      scheduleTimeoutMs: 120_000,
      sweepDeadlineMs: 9 * 60_000,
      functionTimeoutMs: 10 * 60_000,
      storageConnectionString: undefined,
      historyRetentionMs: 400 * 86_400_000,
      webhookUrl: undefined,
      webhookFormat: "auto",
      notifySuccess: false,
      appInsightsConnectionString: undefined,
      watch: [],
      watchVaults: [],
      watchCertificates: [],
      // Nothing declared: renew whenever due.
      renewalCalendar: OPEN_CALENDAR,
    });
  });

  it("parses the verify settings in the same load, when verification first asks for them", () => {
    expect(loadSettings(BASE).verify()).toEqual({
      connectTo: [],
      warnDays: 14,
      windowMs: 2 * 3_600_000,
      unreachableAfterMs: 24 * 3_600_000,
      syncWindowMs: 24 * 3_600_000,
      eventRecheckFirstMs: 60_000,
      timeoutMs: 30_000,
    });
    const tight = loadSettings({ ...BASE, CERTSCHED_HTTP_TIMEOUT: "5s" });
    expect(tight.httpTimeoutMs).toBe(5_000);
    expect(tight.verify().timeoutMs).toBe(5_000);
    // A bad verify setting fails verification where it is used, not every command.
    const bad = loadSettings({ ...BASE, CERTSCHED_VERIFY_WARN_DAYS: "soon" });
    expect(() => bad.verify()).toThrow(ConfigError);
    expect(() => bad.verify()).toThrow(/CERTSCHED_VERIFY_WARN_DAYS/);
  });

  it("drops trailing slashes from URLs and derives the public base URL from the result", () => {
    const s = loadSettings({
      ...BASE,
      CERTSCHED_BASE_URL: "https://certs.example.com/api//",
      CERTSCHED_TOKEN_URL: "https://login.example.com/",
    });

    expect(s.baseUrl).toBe("https://certs.example.com/api");
    expect(s.publicBaseUrl).toBe("https://certs.example.com/api/public");
    expect(s.tokenUrl).toBe("https://login.example.com");
  });

  it("lets explicit values win over derived defaults", () => {
    const s = loadSettings({
      ...BASE,
      CERTSCHED_PUBLIC_BASE_URL: "https://public.example.com/p/",
      CERTSCHED_SUBSCRIPTION_ID: "4242",
      CERTSCHED_RENEWAL_CONCURRENCY: "64",
      CERTSCHED_RENEWAL_GRACE: "PT30M",
      CERTSCHED_HTTP_TIMEOUT: "100ms",
      CERTSCHED_DRY_RUN: "Yes",
    });

    expect(s.publicBaseUrl).toBe("https://public.example.com/p");
    expect(s.subscriptionId).toBe("4242");
    expect(s.subscription).toBe("portal-subscription");
    expect(s.renewalConcurrency).toBe(64);
    expect(s.renewalGraceMs).toBe(30 * 60_000);
    expect(s.httpTimeoutMs).toBe(100);
    expect(s.dryRun).toBe(true);
  });

  it("treats blank settings as unset, so the defaults apply", () => {
    const s = loadSettings({
      ...BASE,
      CERTSCHED_RENEWAL_CONCURRENCY: "   ",
      CERTSCHED_PUBLIC_BASE_URL: "",
      CERTSCHED_SUBSCRIPTION_ID: " ",
    });

    expect(s.renewalConcurrency).toBe(8);
    expect(s.publicBaseUrl).toBe("https://certs.example.com/public");
    expect(s.subscriptionId).toBe("portal-subscription");
  });

  it("does not need tenant, client id or secret with managed identity", () => {
    const s = loadSettings({
      CERTSCHED_BASE_URL: "https://certs.example.com",
      CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
    });

    expect(s.cloudCredential).toBe("managed-identity");
    expect(s.tenantId).toBeUndefined();
  });

  it("accepts a Key Vault instead of a direct client secret", () => {
    const s = loadSettings({
      ...BASE,
      CERTSCHED_CLIENT_SECRET: undefined,
      CERTSCHED_KEY_VAULT_URL: "https://kv-certsched.vault.azure.net/",
    });

    expect(s.clientSecret).toBeUndefined();
    expect(s.keyVaultUrl).toBe("https://kv-certsched.vault.azure.net");
  });
});

describe("loadSettings: AZURE_* variables belong to @azure/identity, not to certsched", () => {
  const azure: Env = {
    AZURE_CLIENT_ID: "azure-client",
    AZURE_TENANT_ID: "azure-tenant",
    AZURE_CLIENT_SECRET: "azure-client-secret-value",
  };

  it("does not fall back to AZURE_CLIENT_ID, AZURE_TENANT_ID or AZURE_CLIENT_SECRET", () => {
    watchSecret(azure.AZURE_CLIENT_SECRET);

    expect(problemNames({ CERTSCHED_BASE_URL: "https://certs.example.com", ...azure })).toEqual([
      "CERTSCHED_CLIENT_ID",
      "CERTSCHED_CLIENT_SECRET",
      "CERTSCHED_TENANT_ID",
    ]);
  });

  it("keeps the CERTSCHED_* values when both are set", () => {
    const s = loadSettings({ ...BASE, ...azure });

    expect([s.clientId, s.tenantId, s.clientSecret]).toEqual([
      "client-1",
      "tenant-1",
      "client-secret-value-1",
    ]);
  });
});

describe("loadSettings: every problem in one ConfigError", () => {
  it("reports a missing URL and a bad concurrency together, each naming its setting", () => {
    const error = configError({
      ...BASE,
      CERTSCHED_BASE_URL: undefined,
      CERTSCHED_RENEWAL_CONCURRENCY: "0",
    });

    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.problems).toEqual([
      { name: "CERTSCHED_BASE_URL", message: "is required" },
      { name: "CERTSCHED_RENEWAL_CONCURRENCY", message: "must be a whole number from 1 to 64" },
    ]);
    expect(error.message).toContain("CERTSCHED_BASE_URL: is required");
    expect(error.message).toContain("CERTSCHED_RENEWAL_CONCURRENCY: must be a whole number");
  });

  // Regression: missing credentials were only reported once every other setting was valid,
  // so an operator fixed one deployment's settings in two rounds.
  it("reports missing credentials together with invalid values", () => {
    expect(
      problemNames({
        CERTSCHED_BASE_URL: "http://certs.example.com",
        CERTSCHED_RENEWAL_CONCURRENCY: "lots",
        CERTSCHED_HTTP_TIMEOUT: "fast",
        CERTSCHED_DRY_RUN: "maybe",
        CERTSCHED_RENEWAL_GRACE: "8d",
      }),
    ).toEqual([
      "CERTSCHED_BASE_URL",
      "CERTSCHED_CLIENT_ID",
      "CERTSCHED_CLIENT_SECRET",
      "CERTSCHED_DRY_RUN",
      "CERTSCHED_HTTP_TIMEOUT",
      "CERTSCHED_RENEWAL_CONCURRENCY",
      "CERTSCHED_RENEWAL_GRACE",
      "CERTSCHED_TENANT_ID",
    ]);
  });

  it.each([
    ["1d", 86_400_000],
    ["3650d", 3_650 * 86_400_000],
    ["P30D", 30 * 86_400_000],
  ])(
    "keeps history rows for CERTSCHED_HISTORY_RETENTION=%s (%d ms; 1 day to 10 years)",
    (value, ms) => {
      expect(loadSettings({ ...BASE, CERTSCHED_HISTORY_RETENTION: value }).historyRetentionMs).toBe(
        ms,
      );
    },
  );

  it("does not ask for client-secret settings when the credential kind itself is invalid", () => {
    expect(
      problemNames({ CERTSCHED_BASE_URL: "https://x.example", CERTSCHED_CLOUD_CREDENTIAL: "msi" }),
    ).toEqual(["CERTSCHED_CLOUD_CREDENTIAL"]);
  });

  it.each([
    ["CERTSCHED_RENEWAL_CONCURRENCY", "65"],
    ["CERTSCHED_RENEWAL_CONCURRENCY", "1.5"],
    ["CERTSCHED_RENEWAL_CONCURRENCY", "-1"],
    ["CERTSCHED_HTTP_TIMEOUT", "99ms"],
    ["CERTSCHED_HTTP_TIMEOUT", "11m"],
    ["CERTSCHED_SECRET_CACHE_TTL", "2d"],
    ["CERTSCHED_RENEWAL_GRACE", "soon"],
    ["CERTSCHED_CLAIM_LEASE", "999ms"],
    ["CERTSCHED_CLAIM_LEASE", "61m"],
    ["CERTSCHED_HISTORY_RETENTION", "23h59m"],
    ["CERTSCHED_HISTORY_RETENTION", "3651d"],
    ["CERTSCHED_DRY_RUN", "on"],
    ["CERTSCHED_CLOUD_CREDENTIAL", "Managed-Identity"],
  ])("refuses %s=%s naming the setting", (name, value) => {
    expect(problemNames({ ...BASE, [name]: value })).toEqual([name]);
  });
});

describe("loadSettings: plain http only on loopback", () => {
  it.each([
    "http://127.0.0.1:8080",
    "http://127.10.20.30",
    "http://localhost:7071/api",
    "http://[::1]:8080",
    "https://certs.example.com",
    "https://10.0.0.1",
  ])("accepts %s", (url) => {
    const s = loadSettings({
      ...BASE,
      CERTSCHED_BASE_URL: url,
      CERTSCHED_TOKEN_URL: url,
      CERTSCHED_KEY_VAULT_URL: url,
    });

    expect(s.baseUrl).toBe(url.replace(/\/$/, ""));
    expect(s.tokenUrl).toBe(s.baseUrl);
    expect(s.keyVaultUrl).toBe(s.baseUrl);
  });

  it.each([
    "http://certs.example.com",
    "http://10.0.0.1:8080",
    "http://192.168.1.10",
    "http://0.0.0.0:8080",
    "http://127.0.0.1.nip.io",
    "http://localhost.example.com",
    "http://[::2]",
  ])("refuses %s for each URL setting", (url) => {
    const error = configError({
      ...BASE,
      CERTSCHED_BASE_URL: url,
      CERTSCHED_PUBLIC_BASE_URL: url,
      CERTSCHED_TOKEN_URL: url,
      CERTSCHED_KEY_VAULT_URL: url,
    });

    expect(error.problems).toEqual(
      [
        "CERTSCHED_BASE_URL",
        "CERTSCHED_PUBLIC_BASE_URL",
        "CERTSCHED_TOKEN_URL",
        "CERTSCHED_KEY_VAULT_URL",
      ].map((name) => ({
        name,
        message: "must use https (plain http is accepted only for loopback hosts)",
      })),
    );
  });

  it.each([
    ["certs.example.com", "must be an absolute URL"],
    ["ftp://certs.example.com", "must use https (plain http is accepted only for loopback hosts)"],
    ["https://certs.example.com/?x=1", "must not have a query or fragment"],
    ["https://certs.example.com/#top", "must not have a query or fragment"],
  ])("refuses CERTSCHED_BASE_URL=%s: %s", (url, message) => {
    expect(configError({ ...BASE, CERTSCHED_BASE_URL: url }).problems).toEqual([
      { name: "CERTSCHED_BASE_URL", message },
    ]);
  });

  it("tells loopback hosts apart by exact name", () => {
    expect(
      [
        "localhost",
        "[::1]",
        "::1",
        "127.0.0.1",
        "127.255.255.254",
        "127.0.0.1.evil",
        "10.0.0.1",
        "localhost2",
      ].map(isLoopbackHost),
    ).toEqual([true, true, true, true, true, false, false, false]);
  });
});

describe("loadSettings: path values", () => {
  // Regression: "." and ".." survived encodeURIComponent, and undici's URL parsing resolved
  // them as dot segments: CERTSCHED_SUBSCRIPTION=".." sent create to /prod/v3/ssl/certificate/schedule/create.
  it.each([".", ".."])("refuses %j as subscription, subscription id and tenant", (value) => {
    const error = configError({
      ...BASE,
      CERTSCHED_SUBSCRIPTION: value,
      CERTSCHED_SUBSCRIPTION_ID: value,
      CERTSCHED_TENANT_ID: value,
    });

    expect(error.problems.map((p) => p.name)).toEqual([
      "CERTSCHED_SUBSCRIPTION",
      "CERTSCHED_SUBSCRIPTION_ID",
      "CERTSCHED_TENANT_ID",
    ]);
    expect(error.problems[0]?.message).toMatch(/would change the request path/);
  });

  it("keeps other values with slashes, dots and reserved characters as they are", () => {
    const s = loadSettings({
      ...BASE,
      CERTSCHED_SUBSCRIPTION: "a/../b?c#d%2F",
      CERTSCHED_TENANT_ID: "...",
    });

    expect(s.subscription).toBe("a/../b?c#d%2F");
    expect(s.tenantId).toBe("...");
  });

  it("names the setting when an operation needs a subscription that is not set", () => {
    const s = loadSettings({ ...BASE, CERTSCHED_SUBSCRIPTION: undefined });

    expect(s.subscriptionId).toBeUndefined();
    for (const [require, name] of [
      [requireSubscription, "CERTSCHED_SUBSCRIPTION"],
      [requireSubscriptionId, "CERTSCHED_SUBSCRIPTION_ID"],
    ] as const) {
      let thrown: unknown;
      try {
        require(s);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).problems.map((p) => p.name)).toEqual([name]);
    }
  });
});

describe("loadSettings: never echoes values", () => {
  const weirdSecret = `s3cr3t-"quoted"-<html>-%2F-${"x".repeat(20)}`;
  const weirdKey = "api-KEY-with spaces&symbols=;";

  it("keeps secrets out of the message even when other settings are broken", () => {
    watchSecret(weirdSecret);
    watchSecret(weirdKey);

    const error = configError({
      CERTSCHED_CLIENT_SECRET: weirdSecret,
      CERTSCHED_API_KEY: weirdKey,
      CERTSCHED_RENEWAL_CONCURRENCY: weirdSecret,
      CERTSCHED_HTTP_TIMEOUT: weirdKey,
      CERTSCHED_DRY_RUN: weirdSecret,
      CERTSCHED_CLOUD_CREDENTIAL: weirdSecret,
      CERTSCHED_KEY_VAULT_URL: `https://user:${weirdSecret}@vault.example.com`,
    });

    expect(error.problems.map((p) => p.name).sort()).toEqual([
      "CERTSCHED_BASE_URL",
      "CERTSCHED_CLOUD_CREDENTIAL",
      "CERTSCHED_DRY_RUN",
      "CERTSCHED_HTTP_TIMEOUT",
      "CERTSCHED_KEY_VAULT_URL",
      "CERTSCHED_RENEWAL_CONCURRENCY",
    ]);
    for (const text of textsOf(error)) {
      expect(text).not.toContain(weirdSecret);
      expect(text).not.toContain(weirdKey);
      expect(text).not.toContain("s3cr3t");
    }
  });

  it("refuses credentials inside a URL without repeating them", () => {
    const error = configError({
      ...BASE,
      CERTSCHED_BASE_URL: "https://admin:hunter2-pw@certs.example.com",
    });

    expect(error.problems).toEqual([
      { name: "CERTSCHED_BASE_URL", message: "must not carry credentials" },
    ]);
    expect(error.message).not.toContain("hunter2");
  });
});

describe("parseDuration", () => {
  it.each([
    ["2h", 7_200_000],
    ["90m", 5_400_000],
    ["45s", 45_000],
    ["250ms", 250],
    ["1d", 86_400_000],
    ["1h30m", 5_400_000],
    ["1.5s", 1_500],
    ["PT2H", 7_200_000],
    ["pt1m30s", 90_000],
    ["P1D", 86_400_000],
    [" 10m ", 600_000],
  ])("reads %j as %i ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "2", "h", "2 h", "2x", "PT", "P", "2h-", "-5m", "1h 30m"])("refuses %j", (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe("secrets", () => {
  it("appear in none of the errors this file provoked", () => {
    expectNoSecretLeaks(10);
  });
});
