import { randomUUID } from "node:crypto";
import { clientCredentialsSource } from "../adapters/identity/clientCredentials.js";
import { managedIdentitySource } from "../adapters/identity/managedIdentity.js";
import { createSecretStore } from "../adapters/identity/secretStore.js";
import { timedTokenSource } from "../adapters/identity/timedTokenSource.js";
import { TokenCache } from "../adapters/identity/tokenCache.js";
import { withClientSecretRetry } from "../adapters/identity/withFreshClientSecret.js";
import { webhookSecrets } from "../adapters/notify/webhookFormat.js";
import { requestLog } from "../adapters/service/requestLog.js";
import { ServiceClient } from "../adapters/service/serviceClient.js";
import { type AccountTables, accountTables } from "../adapters/storage/accountTables.js";
import { adaptiveLimit } from "../core/concurrency/adaptiveLimit.js";
import { DEFAULT_RULE } from "../core/concurrency/aimd.js";
import { fromServiceRecord } from "../core/inventory/fromRecords.js";
import type { SharedBudget } from "../core/ports/budget.js";
import type { ConcurrencyControl } from "../core/ports/concurrency.js";
import type { EstateReaders } from "../core/ports/estate.js";
import { type History, noHistory } from "../core/ports/history.js";
import { type Inventory, noInventory } from "../core/ports/inventory.js";
import { type Ledger, noLedger } from "../core/ports/ledger.js";
import type { Notifier } from "../core/ports/notifier.js";
import type { PreflightProbes } from "../core/ports/preflightProbes.js";
import type { KeyVaultSeam, Probes } from "../core/ports/probes.js";
import type { RequestLog } from "../core/ports/requestLog.js";
import type { SecretStore } from "../core/ports/secrets.js";
import { readRenewalNeed } from "../core/quota/renewalNeed.js";
import type { Settings } from "../core/settings.js";
import { LoadOnce } from "../lib/loadOnce.js";
import { registerSecret } from "../lib/redact/redact.js";
import { type AppServices, tableLocationOf } from "./appServices.js";
import {
  accountNotifierOnFirstUse,
  concurrencyTableOnFirstUse,
  listLedgerRowsOnFirstUse,
  sharedBudgetOnFirstUse,
  tableHistoryOnFirstUse,
  tableInventoryOnFirstUse,
  tableLedgerOnFirstUse,
} from "./lazyAdapters.js";
import type { PerAccount, Seams } from "./seams.js";

/** The seam's value for `account`. */
function forAccount<T extends object>(seam: PerAccount<T>, account: string): T {
  return typeof seam === "function" ? (seam as (account: string) => T)(account) : seam;
}

export { DEFAULT_ACCOUNT } from "./config/settings.js";

/**
 * What one service account uses, built per account on its first use: its settings, its secrets,
 * its token cache, its service client, its request count and budget, and its ledger, history
 * and inventory (its own tables: adapters/storage/accountTables.ts). Nothing here is shared
 * between accounts (a token, a budget or a ledger row of one is never another's).
 */
export interface AccountServices {
  readonly account: string;
  readonly settings: Settings;
  readonly ledger: Ledger;
  /** The run history, in the app's storage account; records, never decides. */
  readonly history: History;
  /** Every certificate certsched knows, beside the ledger; says what to verify. */
  readonly inventory: Inventory;
  readonly secrets: SecretStore;
  readonly tokens: TokenCache;
  readonly client: ServiceClient;
  /** Every request sent to the service, counted into the history (the request budget). */
  readonly requests: RequestLog;
  /** What verification reads certificates with: TLS, and vaults with this account's vault token. */
  readonly probes: Probes;
  /** The app's notifier, naming this account in every message it posts. */
  readonly notifier: Notifier;
  /**
   * How many of its renewals may be in flight: AIMD from CERTSCHED_RENEWAL_CONCURRENCY
   * up to CERTSCHED_RENEWAL_CONCURRENCY_MAX, shared by every process through table
   * `certschedconcurrency` when storage is configured.
   */
  readonly concurrency: ConcurrencyControl;
  /**
   * What preflight reads: DNS, Azure Resource Manager with this account's management
   * token, the HTTP challenge. Built on first call, so the SDKs load only when preflight runs.
   */
  preflightProbes(): Promise<PreflightProbes>;
  /**
   * What estate discovery reads: Resource Graph and the vaults, with this account's tokens.
   * Loaded on first call; `seam` says where vaults are and what TLS they need (tests, sandbox).
   */
  estateReaders(seam?: KeyVaultSeam): Promise<EstateReaders>;
  close(): Promise<void>;
}

/** The seam's probes, or the real ones (app/preflightProbes.ts), loaded and built on first call. */
function preflightProbesOf(
  seams: Pick<Seams, "preflightProbes" | "armCa">,
  account: string,
  settings: Settings,
  tokens: TokenCache,
): () => Promise<PreflightProbes> {
  const seam = seams.preflightProbes;
  if (seam) return async () => forAccount(seam, account);
  const built = new LoadOnce(async () => {
    const { buildPreflightProbes } = await import("./preflightProbes.js");
    return buildPreflightProbes(
      settings.preflight(),
      tokens,
      settings.managementResource,
      seams.armCa,
    );
  });
  return () => built.get();
}

/** Longest wait for the shared limit's table (ms): a slow table must not hold a sweep up. */
const CONCURRENCY_TABLE_TIMEOUT_MS = 5_000;

/** The account's adaptive concurrency, kept in `storage` when there is one. */
function concurrencyOf(
  account: string,
  settings: Settings,
  storage: ReturnType<typeof tableLocationOf>,
): ConcurrencyControl {
  const start = settings.renewalConcurrency;
  return adaptiveLimit({
    rule: { ...DEFAULT_RULE, start, cap: settings.renewalConcurrencyMax ?? start },
    store: storage
      ? concurrencyTableOnFirstUse({
          ...storage,
          account,
          timeoutMs: Math.min(settings.httpTimeoutMs, CONCURRENCY_TABLE_TIMEOUT_MS),
          now: () => new Date(),
        })
      : undefined,
    // Real time, whatever the app's clock: the limit follows the service as it is now.
    now: () => Date.now(),
  });
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
    named: async (name) => {
      const value = await store.named(name);
      registerSecret(value);
      return value;
    },
    describe: () => store.describe(),
  };
}

/**
 * The probes, loaded on first use: the TLS and vault readers (node-forge, the Key Vault SDK's
 * types and their helpers) are for verification, not for every function's cold start.
 */
class ProbesOnFirstUse implements Probes {
  readonly #probes: LoadOnce<Probes>;

  constructor(tokens: TokenCache, vaultResource: string) {
    this.#probes = new LoadOnce(async () =>
      (await import("./probes.js")).probesFor(tokens, vaultResource),
    );
  }

  readonly tls = async (...a: Parameters<Probes["tls"]>) => (await this.#probes.get()).tls(...a);
  readonly keyVault = async (...a: Parameters<Probes["keyVault"]>) =>
    (await this.#probes.get()).keyVault(...a);
}

/** Where the account's tables live: the app's storage account, or undefined without one. */
type StorageLocation = ReturnType<typeof tableLocationOf>;

/** The account's ledger, history and inventory: the seams' when given, else its own tables. */
interface AccountStores {
  readonly ledger: Ledger;
  readonly history: History;
  readonly inventory: Inventory;
}

function accountStores(
  account: string,
  seams: Seams,
  storage: StorageLocation,
  tables: AccountTables,
): AccountStores {
  const ledger = seams.ledger
    ? forAccount(seams.ledger, account)
    : storage
      ? tableLedgerOnFirstUse({ ...storage, tableName: tables.ledger })
      : noLedger;
  const history = seams.history
    ? forAccount(seams.history, account)
    : storage
      ? tableHistoryOnFirstUse({ ...storage, tableName: tables.history })
      : noHistory;
  const inventory = seams.inventory
    ? forAccount(seams.inventory, account)
    : storage
      ? tableInventoryOnFirstUse({ ...storage, tableName: tables.inventory })
      : noInventory;
  return { ledger, history, inventory };
}

/**
 * The account's secrets, each registered for redaction: the configured ones now, those read
 * from the vault as they are read.
 */
function accountSecrets(settings: Settings, now: () => Date, seams: Seams): SecretStore {
  registerSecret(settings.apiKey);
  registerSecret(settings.clientSecret);
  for (const secret of webhookSecrets(settings.webhookUrl)) registerSecret(secret);
  return registered(
    createSecretStore({
      vaultUrl: settings.keyVaultUrl,
      apiKeySecretName: settings.apiKeySecretName,
      clientSecretSecretName: settings.clientSecretSecretName,
      direct: { apiKey: settings.apiKey, clientSecret: settings.clientSecret },
      ttlMs: settings.secretCacheTtlMs,
      timeoutMs: settings.httpTimeoutMs,
      now,
      ...(seams.createSecretReader ? { createReader: seams.createSecretReader } : {}),
    }),
  );
}

/** Where the account's bearer tokens come from: its managed identity or its client credentials. */
function tokenSourceOf(
  settings: Settings,
  app: AppServices,
  seams: Seams,
  secrets: SecretStore,
): ConstructorParameters<typeof TokenCache>[0] {
  const { http, onCall } = app;
  // Managed-identity tokens bypass our HttpClient (@azure/identity calls): time them here,
  // and give up after the same timeout as every other outbound call.
  const identityOptions = {
    timeoutMs: settings.httpTimeoutMs,
    clientId: settings.managedIdentityClientId,
  };
  return settings.cloudCredential === "managed-identity"
    ? onCall
      ? timedTokenSource(managedIdentitySource(seams.credential, identityOptions), onCall)
      : managedIdentitySource(seams.credential, identityOptions)
    : clientCredentialsSource({
        tokenUrl: settings.tokenUrl,
        tenantId: settings.tenantId ?? "",
        clientId: settings.clientId ?? "",
        withClientSecret: (request) => withClientSecretRetry(secrets, request),
        http,
      });
}

/**
 * A read may never take what a due renewal needs, so with no recent due list one is made
 * first (once, for every read waiting on it), as a renewal's request, and kept in the
 * inventory. The client is made after the budget; this runs only once a read asks.
 */
function learnNeedOf(
  client: () => ServiceClient | undefined,
  inventory: Inventory,
  now: () => Date,
  processId: string,
): () => Promise<void> {
  let learning: Promise<void> | undefined;
  return () => {
    learning ??= (async () => {
      const ready = client();
      if (!ready) throw new Error("the service client is not ready");
      const due = await ready.listDue({ context: { purpose: "renewal", runId: processId } });
      const seenAt = now();
      await inventory.upsert(due.certificates.map((c) => fromServiceRecord(c, "due-list", seenAt)));
    })().finally(() => {
      learning = undefined;
    });
    return learning;
  };
}

/**
 * With a quota and a table history, the budget is kept in storage and shared by every
 * process; without storage, none (only this process's requests are counted, and warned of).
 */
function requestBudgetOf(
  settings: Settings,
  now: () => Date,
  storage: StorageLocation,
  tables: AccountTables,
  stores: AccountStores,
  learnNeed: () => Promise<void>,
): SharedBudget | undefined {
  const quota = settings.serviceQuota;
  const { ledger, history, inventory } = stores;
  return quota && storage && history.kind === "table"
    ? sharedBudgetOnFirstUse({
        ...storage,
        tableName: tables.history,
        quota,
        now,
        need: () =>
          readRenewalNeed(
            {
              inventory: () => inventory.list(),
              ledgerRows: async () =>
                ledger.kind === "table"
                  ? listLedgerRowsOnFirstUse({ ...storage, tableName: tables.ledger })
                  : { items: [], invalid: [] },
            },
            now(),
            quota,
          ),
        ...(inventory.kind === "none" ? {} : { learnNeed }),
      })
    : undefined;
}

export function createAccountServices(
  account: string,
  settings: Settings,
  app: AppServices,
  seams: Seams,
): AccountServices {
  const { now, http } = app;
  const storage = tableLocationOf(settings);
  const tables = accountTables(account);
  const stores = accountStores(account, seams, storage, tables);
  const { ledger, history, inventory } = stores;
  const secrets = accountSecrets(settings, now, seams);
  const tokens = new TokenCache(tokenSourceOf(settings, app, seams, secrets), {
    now: () => now().getTime(),
  });
  const processId = randomUUID();
  let client: ServiceClient | undefined;
  const learnNeed = learnNeedOf(() => client, inventory, now, processId);
  const budget = requestBudgetOf(settings, now, storage, tables, stores, learnNeed);
  const requests = requestLog({
    history,
    now,
    defaultTrigger: seams.requestTrigger ?? "http",
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
  return {
    account,
    settings,
    ledger,
    history,
    inventory,
    secrets,
    tokens,
    client,
    requests,
    probes: new ProbesOnFirstUse(tokens, settings.vaultResource),
    preflightProbes: preflightProbesOf(seams, account, settings, tokens),
    estateReaders: async (seam) => {
      if (seams.estateReaders) return forAccount(seams.estateReaders, account);
      return (await import("./estateReaders.js")).buildEstateReaders(
        settings,
        tokens,
        seam,
        seams.armCa,
      );
    },
    notifier: accountNotifierOnFirstUse(app.notifier, account, settings.accountsDeclared),
    concurrency: seams.concurrency
      ? forAccount(seams.concurrency, account)
      : concurrencyOf(account, settings, storage),
    // Requests counted in the last moments are written before the process may end.
    close: async () => {
      await requests.settled();
    },
  };
}
