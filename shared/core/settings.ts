import type { AriSettings } from "./ari/ariSettings.js";
import type { EstateSettings } from "./estate/estateSettings.js";
import type { WatchVault } from "./inventory/watchVaults.js";
import type { PreflightSettings } from "./preflight/preflightSettings.js";
import type { ServiceQuota } from "./quota/serviceQuota.js";
import type { TransparencySettings } from "./transparency/transparencySettings.js";
import type { NamedEndpoint } from "./verification/endpoint.js";
import type { VerifySettings } from "./verification/verifySettings.js";
import type { RenewalCalendar } from "./windows/calendar.js";

/**
 * Every setting certsched reads, parsed once from the environment (the function app's
 * settings). Names are the product's public contract. AZURE_CLIENT_ID and friends are not read:
 * @azure/identity uses those for the app's own identity (managed identity, Key Vault access).
 */
export interface Settings {
  /**
   * The account these settings are for: "default" without declared accounts. The
   * app's settings (loadSettings) carry the first account's service fields; an account's view
   * (settingsOf) carries its own.
   */
  readonly account: string;
  /**
   * Every account of the deployment, in declaration order; one, "default", from the
   * single-account settings when none are declared (CERTSCHED_ACCOUNTS / _FILE).
   */
  readonly accounts: readonly AccountSettings[];
  /** Whether accounts were declared (CERTSCHED_ACCOUNTS or CERTSCHED_ACCOUNTS_FILE). */
  readonly accountsDeclared: boolean;
  /** {base_url} of the service, no trailing slash. */
  baseUrl: string;
  /** {public_base_url}: {base_url}/public unless set. */
  publicBaseUrl: string;
  /** Subscription value in the v3 paths; needed by create and renew. */
  subscription: string | undefined;
  /** Subscription id in the public paths; defaults to `subscription`. */
  subscriptionId: string | undefined;
  /** Service API key given directly; otherwise read from Key Vault. Secret. */
  apiKey: string | undefined;
  /**
   * Authorization on the public operations (list, public renew, test): "none" (default: the
   * tokens travel in the body, spec 5.5) or "api-key" (the API key as Bearer, for a gateway).
   */
  publicAuth: "none" | "api-key";
  tenantId: string | undefined;
  clientId: string | undefined;
  /** Client secret given directly; otherwise read from Key Vault. Secret. */
  clientSecret: string | undefined;
  /** How cloud tokens are obtained: the spec's client-credentials flow, or the app's identity. */
  cloudCredential: "client-secret" | "managed-identity";
  /**
   * The user-assigned managed identity to use (its client id); unset: the app's system-assigned
   * identity (or AZURE_CLIENT_ID, as @azure/identity reads it).
   */
  managedIdentityClientId?: string | undefined;
  /** {token_url}, no trailing slash. */
  tokenUrl: string;
  managementResource: string;
  vaultResource: string;
  /** Key Vault holding the API key and client secret; unset means direct values only. */
  keyVaultUrl: string | undefined;
  apiKeySecretName: string;
  clientSecretSecretName: string;
  /** How long a secret read from Key Vault is trusted, in ms (default 10 min). */
  secretCacheTtlMs: number;
  /** Renewals in flight at once during a sweep (default 8, 1..64). */
  renewalConcurrency: number;
  /**
   * The most adaptive concurrency grows to while the service is healthy (1..256);
   * unset: renewalConcurrency (it backs off on 429s and recovers, never beyond).
   */
  renewalConcurrencyMax?: number | undefined;
  /** Accounts swept at once by one process (CLI, in-process runs): default 4, 1..64. */
  accountConcurrency: number;
  /** Days in a row an account's credentials are refused before its run part says "dead" (3). */
  deadAccountDays: number;
  /** A certificate whose renewal was requested this recently is skipped, in ms (default 2 h). */
  renewalGraceMs: number;
  /**
   * How long a sweep's claim, not yet sent, keeps other sweeps away, in ms (default 1 min,
   * CERTSCHED_CLAIM_LEASE): a sweep that died holding one is renewed at once after it.
   */
  claimLeaseMs?: number;
  /** List and decide, renew nothing. */
  dryRun: boolean;
  /** Timeout of each outbound HTTP call, in ms (default 30 s). */
  httpTimeoutMs: number;
  /**
   * Timeout of each attempt of a v3 create or v3 renew, in ms (default 120 s, at most
   * SCHEDULE_TIMEOUT_MAX_MS). The vendor's 8.0 client waits up to 10 min for them; certsched stays
   * under the 230 s front end of the HTTP functions that call them. No answer in time is
   * "unknown", confirmed with Get Certificate (shared/usecases/createCertificate.ts).
   */
  scheduleTimeoutMs: number;
  /**
   * The service's request budget (CERTSCHED_SERVICE_QUOTA, e.g. "100/7d"): at most `requests`
   * requests in any rolling `windowMs`; unset: no budget is enforced (requests are still counted).
   */
  serviceQuota: ServiceQuota | undefined;
  /**
   * When the account's certificates may be renewed: its windows, freezes and per-certificate
   * policy (core/windows/calendar.ts); nothing declared: whenever due.
   */
  renewalCalendar: RenewalCalendar;
  /**
   * How long a sweep may start renewals, in ms from its start (default 9 min: under host.json's
   * 10-min functionTimeout, leaving room for the renewals in flight to end on their own timeout).
   */
  sweepDeadlineMs: number;
  /**
   * host.json's functionTimeout, in ms (CERTSCHED_FUNCTION_TIMEOUT, default 10 min): a timer
   * sweep stops its renewals early enough that its bookkeeping ends inside it
   * (core/renewal/runBudget.ts).
   */
  functionTimeoutMs: number;
  /** Connection string of the app's storage account (AzureWebJobsStorage); the ledger lives there. */
  storageConnectionString: string | undefined;
  /**
   * Table endpoint of the app's storage account, reached with the app's identity; preferred
   * over the connection string (identity-based AzureWebJobsStorage has no connection string).
   */
  ledgerTableUri: string | undefined;
  /**
   * Queue endpoint of the app's storage account (CERTSCHED_QUEUE_URI), reached with the app's
   * identity; where POST /api/renewals queues its runs (docs/runs.md). Preferred over the
   * connection string's QueueEndpoint, as CERTSCHED_LEDGER_TABLE_URI is for tables.
   */
  queueUri: string | undefined;
  /** How long the run history keeps a row, in ms (default 400 days, 1 day..10 years). */
  historyRetentionMs: number;
  /** Where sweep notifications are posted; unset means no notifications. */
  webhookUrl: string | undefined;
  /** Message format; "auto" picks from the URL (Teams workflow, Slack, else generic JSON). */
  webhookFormat: "auto" | "teams" | "slack" | "json";
  /** Also notify after sweeps that went well, so silence never has to mean "fine". */
  notifySuccess: boolean;
  /** Application Insights; telemetry is on when set. */
  appInsightsConnectionString: string | undefined;
  /**
   * CERTSCHED_WATCH: endpoints verification watches that the service does not list (the plain
   * entries and the domains of the mapped ones, `vault/certificate=host;...`).
   */
  watch: readonly NamedEndpoint[];
  /** CERTSCHED_WATCH's mapped entries: which domains serve which Key Vault certificate. */
  watchVaults: readonly WatchVault[];
  /** CERTSCHED_WATCH_CERTIFICATES: certificates by name, filled in with Get Certificate. */
  watchCertificates: readonly string[];
  /**
   * CERTSCHED_VERIFY_* and the probe timeout (app/config/verifySettings.ts), parsed on first call
   * and kept: a bad verify setting fails verification, where it is used, not every command.
   */
  readonly verify: () => VerifySettings;
  /**
   * CERTSCHED_ARM_URL, CERTSCHED_DNS_SERVERS, CERTSCHED_CA_IDENTIFIERS, CERTSCHED_PREFLIGHT_*
   * (app/config/preflightSettings.ts), parsed on first call like `verify`: a bad preflight
   * setting fails preflight, not every command.
   */
  readonly preflight: () => PreflightSettings;
  /**
   * CERTSCHED_ARI_DIRECTORIES and CERTSCHED_ARI_TIMEOUT (app/config/ariSettings.ts), parsed on
   * first call like `verify`: a bad ARI setting turns ARI off with a warning, nothing else.
   */
  readonly ari: () => AriSettings;
  /**
   * CERTSCHED_CT_* (app/config/transparencySettings.ts), parsed on first call like `verify`: a
   * bad setting fails the Certificate Transparency watch and its surfaces, nothing else.
   */
  readonly transparency: () => TransparencySettings;
  /**
   * CERTSCHED_ESTATE, CERTSCHED_ESTATE_EXPIRING_DAYS, CERTSCHED_ESTATE_TIMEOUT
   * (app/config/estateSettings.ts), parsed on first call like `verify`: a bad setting fails
   * estate discovery and its surfaces, nothing else.
   */
  readonly estate: () => EstateSettings;
}

/** One account: its name and its service, credentials and quota (core/accounts.ts). */
export type AccountSettings = { readonly name: string } & Pick<Settings, AccountField>;

/** The fields that differ per account (docs/contracts/accounts.md); the rest is the app's. */
export type AccountField =
  | "baseUrl"
  | "publicBaseUrl"
  | "subscription"
  | "subscriptionId"
  | "apiKey"
  | "apiKeySecretName"
  | "tenantId"
  | "clientId"
  | "clientSecret"
  | "clientSecretSecretName"
  | "cloudCredential"
  | "managedIdentityClientId"
  | "tokenUrl"
  | "managementResource"
  | "vaultResource"
  | "serviceQuota"
  | "renewalCalendar";

export type Env = Readonly<Record<string, string | undefined>>;
