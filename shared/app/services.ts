import { randomUUID } from "node:crypto";
import { clientCredentialsSource } from "../adapters/identity/clientCredentials.js";
import {
  type CredentialLike,
  managedIdentitySource,
} from "../adapters/identity/managedIdentity.js";
import { createSecretStore } from "../adapters/identity/secretStore.js";
import { timedTokenSource } from "../adapters/identity/timedTokenSource.js";
import { TokenCache } from "../adapters/identity/tokenCache.js";
import { withClientSecretRetry } from "../adapters/identity/withFreshClientSecret.js";
import { createNotifier } from "../adapters/notify/notifier.js";
import { webhookSecrets } from "../adapters/notify/webhookFormat.js";
import { requestLog } from "../adapters/service/requestLog.js";
import { ServiceClient } from "../adapters/service/serviceClient.js";
import { listLedgerRows } from "../adapters/storage/ledgerRows.js";
import { sharedBudget } from "../adapters/storage/sharedBudget.js";
import { tableHistory } from "../adapters/storage/tableHistory.js";
import { tableInventory } from "../adapters/storage/tableInventory.js";
import { tableLedger } from "../adapters/storage/tableLedger.js";
import type { Trigger } from "../core/history/events.js";
import { fromServiceRecord } from "../core/inventory/fromRecords.js";
import { type History, noHistory } from "../core/ports/history.js";
import { type Inventory, noInventory } from "../core/ports/inventory.js";
import type { Ledger } from "../core/ports/ledger.js";
import { noLedger } from "../core/ports/ledger.js";
import { type Notifier, noNotifier } from "../core/ports/notifier.js";
import type { Probes } from "../core/ports/probes.js";
import type { RequestLog } from "../core/ports/requestLog.js";
import type { SecretReader, SecretStore } from "../core/ports/secrets.js";
import { noTelemetry, type Telemetry } from "../core/ports/telemetry.js";
import { readRenewalNeed } from "../core/quota/renewalNeed.js";
import { withPurpose } from "../core/quota/requestContext.js";
import type { Env, Settings } from "../core/settings.js";
import { HttpClient } from "../lib/http/httpClient.js";
import { registerSecret } from "../lib/redact/redact.js";
import { loadSettings } from "./config/settings.js";
import { probesFor } from "./probes.js";

/** Everything a function or the CLI needs, built once from the settings. */
export interface Runtime {
  readonly settings: Settings;
  readonly http: HttpClient;
  readonly tokens: TokenCache;
  readonly secrets: SecretStore;
  readonly client: ServiceClient;
  readonly ledger: Ledger;
  /** The run history (issue 13), in the ledger's storage account; records, never decides. */
  readonly history: History;
  /** Every certificate certsched knows (issue 12), beside the ledger; says what to verify. */
  readonly inventory: Inventory;
  /** Every request sent to the service, counted into the history (the request budget). */
  readonly requests: RequestLog;
  readonly now: () => Date;
  /**
   * The telemetry, built on first call: OpenTelemetry to Application Insights when
   * APPLICATIONINSIGHTS_CONNECTION_STRING is set (imported only then), else a no-op. Rejects
   * when it cannot start; the next call tries again.
   */
  telemetry(): Promise<Telemetry>;
  /** Posts sweep messages to CERTSCHED_WEBHOOK_URL; does nothing when it is unset. */
  readonly notifier: Notifier;
  /** What verification reads certificates with: TLS, and vaults with the vault token. */
  readonly probes: Probes;
  close(): Promise<void>;
}

/** Seams for tests and tools; production passes none. */
export interface RuntimeOverrides {
  readonly now?: () => Date;
  /** Builds the Key Vault reader (tests: a real SecretClient trusting a local fake vault). */
  readonly createSecretReader?: (vaultUrl: string) => SecretReader | Promise<SecretReader>;
  /** The app's identity for managed-identity tokens. */
  readonly credential?: CredentialLike;
  /** Replaces the ledger chosen from CERTSCHED_LEDGER_TABLE_URI / AzureWebJobsStorage. */
  readonly ledger?: Ledger;
  /** Replaces the history chosen the same way as the ledger. */
  readonly history?: History;
  /** Replaces the inventory chosen the same way as the ledger. */
  readonly inventory?: Inventory;
  /** Observer of every outbound call (benchmark); telemetry observes them too when on. */
  readonly onCall?: ConstructorParameters<typeof HttpClient>[0]["onCall"];
  /** Replaces the telemetry chosen from the settings (tests: in-memory OpenTelemetry). */
  readonly telemetry?: Telemetry;
  /**
   * The trigger of service requests sent outside a sweep or a renewal by name, for the request
   * count: "http" (the function app's default), "cli" for the CLI.
   */
  readonly requestTrigger?: Trigger;
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

/** Loads the telemetry the settings ask for; the SDK is imported here, never at module load. */
async function loadTelemetry(
  settings: Settings,
  overrides: RuntimeOverrides,
  now: () => Date,
): Promise<Telemetry> {
  if (overrides.telemetry) return overrides.telemetry;
  const connectionString = settings.appInsightsConnectionString;
  if (!connectionString) return noTelemetry;
  const { startAzureMonitor } = await import("../adapters/telemetry/azureMonitor.js");
  return startAzureMonitor(connectionString, now);
}

export function createRuntime(settings: Settings, overrides: RuntimeOverrides = {}): Runtime {
  const now = overrides.now ?? (() => new Date());
  registerSecret(settings.apiKey);
  registerSecret(settings.clientSecret);
  for (const secret of webhookSecrets(settings.webhookUrl)) registerSecret(secret);

  let telemetryLoad: Promise<Telemetry> | undefined;
  const telemetry = (): Promise<Telemetry> => {
    telemetryLoad ??= loadTelemetry(settings, overrides, now).catch((error: unknown) => {
      telemetryLoad = undefined;
      throw error;
    });
    return telemetryLoad;
  };
  const telemetryOn =
    overrides.telemetry !== undefined || settings.appInsightsConnectionString !== undefined;
  type OnCall = NonNullable<RuntimeOverrides["onCall"]>;
  // The first recorded call loads the telemetry; a call that cannot be recorded is dropped.
  const recordCall: OnCall = (upstream, durationMs, status) => {
    telemetry()
      .then((t) => t.recordCall(upstream, durationMs, status))
      .catch(() => {});
  };
  const onCall: OnCall | undefined =
    telemetryOn || overrides.onCall
      ? (upstream, durationMs, status) => {
          overrides.onCall?.(upstream, durationMs, status);
          if (telemetryOn) recordCall(upstream, durationMs, status);
        }
      : undefined;

  const http = new HttpClient({
    timeoutMs: settings.httpTimeoutMs,
    now: () => now().getTime(),
    ...(onCall ? { onCall } : {}),
  });
  const secrets = registered(
    createSecretStore({
      vaultUrl: settings.keyVaultUrl,
      apiKeySecretName: settings.apiKeySecretName,
      clientSecretSecretName: settings.clientSecretSecretName,
      direct: { apiKey: settings.apiKey, clientSecret: settings.clientSecret },
      ttlMs: settings.secretCacheTtlMs,
      timeoutMs: settings.httpTimeoutMs,
      now,
      ...(overrides.createSecretReader ? { createReader: overrides.createSecretReader } : {}),
    }),
  );
  // Managed-identity tokens bypass our HttpClient (@azure/identity calls): time them here,
  // and give up after the same timeout as every other outbound call.
  const tokenTimeout = { timeoutMs: settings.httpTimeoutMs };
  const source =
    settings.cloudCredential === "managed-identity"
      ? onCall
        ? timedTokenSource(managedIdentitySource(overrides.credential, tokenTimeout), onCall)
        : managedIdentitySource(overrides.credential, tokenTimeout)
      : clientCredentialsSource({
          tokenUrl: settings.tokenUrl,
          tenantId: settings.tenantId ?? "",
          clientId: settings.clientId ?? "",
          withClientSecret: (request) => withClientSecretRetry(secrets, request),
          http,
        });
  const tokens = new TokenCache(source, { now: () => now().getTime() });
  // The ledger and the history live side by side in the app's storage, reached the same way.
  const storage =
    settings.ledgerTableUri || settings.storageConnectionString
      ? {
          tableUri: settings.ledgerTableUri,
          connectionString: settings.storageConnectionString,
          timeoutMs: settings.httpTimeoutMs,
        }
      : undefined;
  const ledger = overrides.ledger ?? (storage ? tableLedger(storage) : noLedger);
  const history = overrides.history ?? (storage ? tableHistory(storage) : noHistory);
  const inventory = overrides.inventory ?? (storage ? tableInventory(storage) : noInventory);
  // Issue 20: with a quota and a table history, the budget is kept in storage and shared by
  // every process; without storage, only this process's requests are counted (and warned of).
  const quota = settings.serviceQuota;
  const processId = randomUUID();
  // Issue 20: a read may never take what a due renewal needs, so with no recent due list one is
  // made first (once, for every read waiting on it), as a renewal's request, and kept in the
  // inventory. The client is made below; this runs only once a read asks.
  let client: ServiceClient | undefined;
  let learning: Promise<void> | undefined;
  const learnNeed = () => {
    learning ??= withPurpose({ purpose: "renewal", runId: processId }, async () => {
      if (!client) throw new Error("the service client is not ready");
      const due = await client.listDue();
      const seenAt = now();
      await inventory.upsert(due.certificates.map((c) => fromServiceRecord(c, "due-list", seenAt)));
    }).finally(() => {
      learning = undefined;
    });
    return learning;
  };
  const budget =
    quota && storage && history.kind === "table"
      ? sharedBudget({
          ...storage,
          quota,
          now,
          need: () =>
            readRenewalNeed(
              {
                inventory: () => inventory.list(),
                ledgerRows: async () =>
                  ledger.kind === "table" ? listLedgerRows(storage) : { items: [], invalid: [] },
              },
              now(),
              quota,
            ),
          ...(inventory.kind === "none" ? {} : { learnNeed }),
        })
      : undefined;
  const requests = requestLog({
    history,
    now,
    defaultTrigger: overrides.requestTrigger ?? "http",
    budget,
    processId,
  });
  client = new ServiceClient({
    settings,
    http,
    tokens,
    apiKey: () => secrets.apiKey(),
    requests,
  });
  const notifier = settings.webhookUrl
    ? createNotifier({
        url: settings.webhookUrl,
        format: settings.webhookFormat,
        notifySuccess: settings.notifySuccess,
        ...(onCall ? { onCall } : {}),
      })
    : noNotifier;
  return {
    settings,
    http,
    tokens,
    secrets,
    client,
    ledger,
    history,
    inventory,
    requests,
    now,
    telemetry,
    notifier,
    probes: probesFor(tokens, settings.vaultResource),
    close: async () => {
      // Requests counted in the last moments are written before the process may end.
      await requests.settled();
      await Promise.all([http.close(), notifier.close()]);
    },
  };
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
