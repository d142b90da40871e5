import { HttpClient } from "./http/httpClient.js";
import type { Ledger } from "./ledger/ledger.js";
import { noLedger } from "./ledger/ledger.js";
import { tableLedger } from "./ledger/tableLedger.js";
import { registerSecret } from "./redact.js";
import { createSecretStore, type SecretReader, type SecretStore } from "./secrets/secretStore.js";
import { withClientSecretRetry } from "./secrets/withFreshClientSecret.js";
import { ServiceClient } from "./service/serviceClient.js";
import { type Env, loadSettings, type Settings } from "./settings.js";
import { clientCredentialsSource } from "./tokens/clientCredentials.js";
import { type CredentialLike, managedIdentitySource } from "./tokens/managedIdentity.js";
import { TokenCache } from "./tokens/tokenCache.js";

/** Everything a function or the CLI needs, built once from the settings. */
export interface Runtime {
  readonly settings: Settings;
  readonly http: HttpClient;
  readonly tokens: TokenCache;
  readonly secrets: SecretStore;
  readonly client: ServiceClient;
  readonly ledger: Ledger;
  readonly now: () => Date;
  close(): Promise<void>;
}

/** Seams for tests and tools; production passes none. */
export interface RuntimeOverrides {
  readonly now?: () => Date;
  /** Builds the Key Vault reader (tests: a real SecretClient trusting a local fake vault). */
  readonly createSecretReader?: (vaultUrl: string) => SecretReader | Promise<SecretReader>;
  /** The app's identity for managed-identity tokens. */
  readonly credential?: CredentialLike;
  /** Replaces the ledger chosen from AzureWebJobsStorage. */
  readonly ledger?: Ledger;
  /** Observer of every outbound call (telemetry, benchmark). */
  readonly onCall?: ConstructorParameters<typeof HttpClient>[0]["onCall"];
}

function registered(store: SecretStore): SecretStore {
  return {
    apiKey: async () => {
      const value = await store.apiKey();
      registerSecret(value);
      return value;
    },
    clientSecret: async (options) => {
      const value = await store.clientSecret(options);
      registerSecret(value);
      return value;
    },
    describe: () => store.describe(),
  };
}

export function createRuntime(settings: Settings, overrides: RuntimeOverrides = {}): Runtime {
  const now = overrides.now ?? (() => new Date());
  registerSecret(settings.apiKey);
  registerSecret(settings.clientSecret);
  const http = new HttpClient({
    timeoutMs: settings.httpTimeoutMs,
    now: () => now().getTime(),
    ...(overrides.onCall ? { onCall: overrides.onCall } : {}),
  });
  const secrets = registered(
    createSecretStore({
      vaultUrl: settings.keyVaultUrl,
      apiKeySecretName: settings.apiKeySecretName,
      clientSecretSecretName: settings.clientSecretSecretName,
      direct: { apiKey: settings.apiKey, clientSecret: settings.clientSecret },
      ttlMs: settings.secretCacheTtlMs,
      now,
      ...(overrides.createSecretReader ? { createReader: overrides.createSecretReader } : {}),
    }),
  );
  const source =
    settings.cloudCredential === "managed-identity"
      ? managedIdentitySource(overrides.credential)
      : clientCredentialsSource({
          tokenUrl: settings.tokenUrl,
          tenantId: settings.tenantId ?? "",
          clientId: settings.clientId ?? "",
          withClientSecret: (request) => withClientSecretRetry(secrets, request),
          http,
        });
  const tokens = new TokenCache(source, { now: () => now().getTime() });
  const client = new ServiceClient({ settings, http, tokens, apiKey: () => secrets.apiKey() });
  const ledger =
    overrides.ledger ??
    (settings.storageConnectionString
      ? tableLedger({ connectionString: settings.storageConnectionString })
      : noLedger);
  return { settings, http, tokens, secrets, client, ledger, now, close: () => http.close() };
}

let current: Runtime | undefined;
let currentOverrides: RuntimeOverrides = {};

/**
 * The process-wide runtime, built on first use (not at import: cold start stays cheap, and a
 * settings problem surfaces as a clear error from the first call, not a crash at load).
 */
export function getRuntime(env: Env = process.env): Runtime {
  current ??= createRuntime(loadSettings(env), currentOverrides);
  return current;
}

/** Drops the process-wide runtime so the next call rebuilds it (tests, settings reload). */
export async function resetRuntime(overrides: RuntimeOverrides = {}): Promise<void> {
  const old = current;
  current = undefined;
  currentOverrides = overrides;
  await old?.close();
}
