import { AzureLogger, getLogLevel, setLogLevel } from "@azure/logger";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXPIRY_MARGIN_MS, TokenCache } from "../../../../shared/adapters/identity/tokenCache.js";
import { tokenCredential } from "../../../../shared/adapters/identity/tokenCredential.js";
import { type KeyVaultProbeOptions, probeKeyVault } from "../../../../shared/app/probes.js";
import type { AccessToken, TokenSource } from "../../../../shared/core/ports/tokens.js";
import type { KeyVaultTarget } from "../../../../shared/core/verification/vaultVerdict.js";
import { isCertschedError } from "../../../../shared/lib/errors.js";
import { registerToken } from "../../../../shared/lib/redact/redact.js";
import { makeCa, makeLeaf } from "../../../support/certificates.js";
import { type FakeKeyVault, startFakeKeyVault } from "../../../support/fakeKeyVault.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);

const MANAGEMENT = "https://management.core.windows.net/";
const VAULT = "https://vault.azure.net";
const MANAGEMENT_TOKEN = "mgmt-token-5b0c2f7e9d1a4c63";
const VAULT_TOKENS = ["vault-token-one-8e2a6d41c0f3", "vault-token-two-3f9b7c5e1a2d"];

const ca = makeCa("certsched vault token test CA");
const current = makeLeaf(ca, {
  names: ["www.contoso.test"],
  notBefore: new Date(NOW.getTime() - DAY),
  notAfter: new Date(NOW.getTime() + 60 * DAY),
}).cert;

/**
 * certsched's two tokens, one per resource, registered for redaction the moment they are issued
 * (as clientCredentials.ts and managedIdentity.ts do); each vault request gets the next vault token.
 */
function twoResourceSource() {
  const asked: string[] = [];
  let vaultIssued = 0;
  const source: TokenSource = {
    kind: "client-secret",
    getToken: async (resource): Promise<AccessToken> => {
      asked.push(resource);
      const token =
        resource === VAULT
          ? (VAULT_TOKENS[Math.min(vaultIssued++, VAULT_TOKENS.length - 1)] ?? "")
          : MANAGEMENT_TOKEN;
      registerToken(token);
      return { token, expiresOnMs: Date.now() + HOUR };
    },
  };
  return { source, asked };
}

const TARGET: KeyVaultTarget = {
  keyVaultName: "contoso-kv",
  keyVaultCertificateName: "www-contoso",
  certificateName: "www.contoso.test",
};

let vault: FakeKeyVault;
const closers: FakeKeyVault[] = [];
beforeEach(async () => {
  vault = await startFakeKeyVault({ certificates: { "www-contoso": current } });
  closers.push(vault);
});
afterEach(async () => {
  for (const v of closers.splice(0)) await v.close();
});

function options(tokens: TokenCache, on: FakeKeyVault = vault): KeyVaultProbeOptions {
  return {
    tokens,
    vaultResource: VAULT,
    settings: { warnDays: 14, windowMs: 2 * HOUR, timeoutMs: 5_000 },
    now: () => NOW,
    seam: { vaultUrl: () => on.url, clientOptions: on.certificateClientOptions },
  };
}

describe("the token the vault receives", () => {
  it("is certsched's vault token, never the management token, even with both cached", async () => {
    const { source, asked } = twoResourceSource();
    const tokens = new TokenCache(source);
    // As after a sweep: both tokens are in the cache.
    await tokens.token(MANAGEMENT);
    await tokens.token(VAULT);

    const result = await probeKeyVault(TARGET, options(tokens));

    expect(result.status).toBe("ok");
    expect(vault.tokensSeen()).toEqual([VAULT_TOKENS[0]]);
    // The cached vault token was used: no new token request for the probe.
    expect(asked).toEqual([MANAGEMENT, VAULT]);
  });

  it("is not sent at all to a vault whose challenge asks for another audience", async () => {
    const other = await startFakeKeyVault({
      certificates: { "www-contoso": current },
      challengeResource: "https://management.core.windows.net/",
    });
    closers.push(other);
    const { source, asked } = twoResourceSource();
    const tokens = new TokenCache(source);
    await tokens.token(MANAGEMENT);

    const result = await probeKeyVault(TARGET, options(tokens, other));

    expect(result.status).toBe("unreachable");
    expect(result.detail).toBe(
      "no vault token for vault contoso-kv: the server asked for a token for https://management.core.windows.net//.default; certsched sends it only its token for https://vault.azure.net",
    );
    expect(other.tokensSeen()).toEqual([]);
    expect(asked).toEqual([MANAGEMENT]);
  });

  it("a 401 to a cached token: the cache drops it and one fresh token gets the read through", async () => {
    const { source, asked } = twoResourceSource();
    const tokens = new TokenCache(source);
    vault.refuseToken(VAULT_TOKENS[0] ?? "");

    const result = await probeKeyVault(TARGET, options(tokens));

    expect(result.status).toBe("ok");
    expect(vault.tokensSeen()).toEqual(VAULT_TOKENS);
    expect(asked).toEqual([VAULT, VAULT]);
  });

  it("a 401 to the fresh token too: unreachable, and no third token is asked for", async () => {
    const { source, asked } = twoResourceSource();
    const tokens = new TokenCache(source);
    for (const t of VAULT_TOKENS) vault.refuseToken(t);

    const result = await probeKeyVault(TARGET, options(tokens));

    expect(result.status).toBe("unreachable");
    expect(result.detail).toBe(
      "vault contoso-kv refused certsched's vault token (401 Unauthorized): AKV10032: Invalid issuer. Expected one of https://sts.windows.net/..., found https://sts.windows.net/...",
    );
    expect(asked).toEqual([VAULT, VAULT]);
  });
});

describe("no token or secret in any result, detail or SDK log", () => {
  let level: ReturnType<typeof getLogLevel>;
  let log: typeof AzureLogger.log;
  const lines: string[] = [];
  beforeEach(() => {
    level = getLogLevel();
    log = AzureLogger.log;
    lines.length = 0;
    AzureLogger.log = (...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    };
    setLogLevel("verbose");
  });
  afterEach(() => {
    setLogLevel(level);
    AzureLogger.log = log;
  });

  // Vaults (or proxies before them) that quote what they were sent.
  const echo = (status: number) => ({
    status,
    authorizedOnly: true,
    times: Number.POSITIVE_INFINITY,
    body: JSON.stringify({
      error: {
        code: "Echo",
        message: `refused Authorization: Bearer ${VAULT_TOKENS[0]} and ${VAULT_TOKENS[1]} (${MANAGEMENT_TOKEN})`,
      },
    }),
  });

  it.each([
    ["ok", undefined],
    ["403 echoing the tokens", echo(403)],
    ["401 echoing the tokens", echo(401)],
    ["500 echoing the tokens", echo(500)],
    ["404", { status: 404, authorizedOnly: true }],
  ] as const)("%s", async (_name, fault) => {
    const { source } = twoResourceSource();
    const tokens = new TokenCache(source);
    await tokens.token(MANAGEMENT);
    if (fault) vault.inject(fault);

    const result = await probeKeyVault(TARGET, options(tokens));

    // The tokens really went out (so their absence below means something).
    expect(vault.tokensSeen().length).toBeGreaterThan(0);
    expect(lines.length).toBeGreaterThan(0);
    const seen = [JSON.stringify(result), ...lines].join("\n");
    for (const secret of [...VAULT_TOKENS, MANAGEMENT_TOKEN]) expect(seen).not.toContain(secret);
    if (fault?.status === 500) expect(result.detail).toContain("Bearer [REDACTED]");
  });

  it("a token the vault echoes where its message is cut: no piece of it either", async () => {
    const { source } = twoResourceSource();
    const tokens = new TokenCache(source);
    // The detail keeps the first 300 characters of the vault's message: the token straddles it.
    const message = `${"p".repeat(300 - 20)}${VAULT_TOKENS[0]} ${VAULT_TOKENS[1]}`;
    vault.inject({
      status: 500,
      authorizedOnly: true,
      times: Number.POSITIVE_INFINITY,
      body: JSON.stringify({ error: { code: "Echo", message } }),
    });

    const result = await probeKeyVault(TARGET, options(tokens));

    expect(vault.tokensSeen().length).toBeGreaterThan(0);
    expect(result.status).toBe("unreachable");
    const seen = [JSON.stringify(result), ...lines].join("\n");
    // Not even the piece the cut would leave after redacting half of the token (its first half).
    for (const secret of VAULT_TOKENS) {
      const tail = secret.slice(secret.length / 2);
      for (let i = 0; i + 6 <= tail.length; i++) expect(seen).not.toContain(tail.slice(i, i + 6));
    }
  });
});

describe("tokenCredential", () => {
  const fixed = () => {
    const asked: string[] = [];
    const cache = {
      token: async (resource: string) => {
        asked.push(resource);
        return `token-for-${resource}`;
      },
    };
    return { cache, asked };
  };

  it.each([
    "https://vault.azure.net/.default",
    ["https://vault.azure.net/.default"],
    "https://vault.azure.net//.default",
    "https://vault.azure.net",
  ])(
    "gives the vault token for the vault's scope %j, valid for the cache's margin",
    async (scope) => {
      const { cache, asked } = fixed();
      const credential = tokenCredential(cache, VAULT, { now: () => 1_000 });
      const token = await credential.getToken(scope);
      expect(token).toEqual({
        token: "token-for-https://vault.azure.net",
        expiresOnTimestamp: 1_000 + EXPIRY_MARGIN_MS,
      });
      expect(credential.lastToken).toBe("token-for-https://vault.azure.net");
      expect(asked).toEqual([VAULT]);
    },
  );

  it.each([
    [["https://vault.azure.net/.default", "https://graph.microsoft.com/.default"]],
    ["https://vault.azure.net.attacker.test/.default"],
    [[]],
    ["https://management.core.windows.net//.default\n[forged log line]"],
  ])("refuses any other scope %j, asking the cache for nothing", async (scope) => {
    const { cache, asked } = fixed();
    const credential = tokenCredential(cache, VAULT);
    const error = await credential.getToken(scope).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isCertschedError(error) && error.code).toBe("TOKEN_UNAVAILABLE");
    expect(String((error as Error).message)).not.toContain("\n");
    expect(asked).toEqual([]);
    expect(credential.lastToken).toBeUndefined();
  });

  it("gives up when the SDK's signal aborts, even though the cache takes none", async () => {
    const credential = tokenCredential({ token: () => new Promise<string>(() => {}) }, VAULT);
    const controller = new AbortController();
    const pending = credential.getToken("https://vault.azure.net/.default", {
      abortSignal: controller.signal,
    });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });
});
