import { settingsOf } from "../../core/accounts.js";
import type { AriSettings } from "../../core/ari/ariSettings.js";
import type { EstateSettings } from "../../core/estate/estateSettings.js";
import type { PreflightSettings } from "../../core/preflight/preflightSettings.js";
import type { ServiceQuota } from "../../core/quota/serviceQuota.js";
import type { AccountSettings, Env, Settings } from "../../core/settings.js";
import type { TransparencySettings } from "../../core/transparency/transparencySettings.js";
import type { VerifySettings } from "../../core/verification/verifySettings.js";
import type { RenewalCalendar } from "../../core/windows/calendar.js";
import { ConfigError, type Problem } from "../../lib/errors.js";
import {
  ACCOUNTS_FILE_SETTING,
  ACCOUNTS_SETTING,
  type AccountDefaults,
  accountsSource,
  parseAccounts,
  SINGLE_ACCOUNT_SETTINGS,
} from "./accounts.js";
import { loadAriSettings } from "./ariSettings.js";
import { loadEstateSettings } from "./estateSettings.js";
import { loadPreflightSettings } from "./preflightSettings.js";
import { KNOWN_SETTINGS, schema } from "./schema.js";
import { loadTransparencySettings } from "./transparencySettings.js";
import { loadVerifySettings } from "./verifySettings.js";
import {
  type CalendarDefaults,
  calendarDefaults,
  calendarOf,
  checkedCalendars,
  NO_CALENDAR_DEFAULTS,
} from "./windowSettings.js";

/**
 * local.settings.sample.json's placeholders: `<directory (tenant) id>`, and
 * `https://<your-vault>.vault.azure.net`. A copied sample that was never filled in would
 * otherwise fail much later, as "identity provider unreachable".
 */
const PLACEHOLDER = /^<.*>$/s;
/** A URL whose host is (or holds) a placeholder: `https://<your-vault>.vault.azure.net`. */
const URL_PLACEHOLDER = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*<[^<>]*>/i;

/**
 * Only a whole `<...>` value or a placeholder in a URL's host counts: a secret may hold `<` and
 * `>` (an API key of any printable characters) and must not be refused for it.
 */
function isPlaceholder(value: string): boolean {
  const text = value.trim();
  return PLACEHOLDER.test(text) || URL_PLACEHOLDER.test(text);
}

function placeholderProblems(raw: Record<string, string>): Problem[] {
  return Object.entries(raw)
    .filter(([name, value]) => KNOWN_SETTINGS.includes(name) && isPlaceholder(value))
    .map(([name]) => ({
      name,
      // The value is not quoted: in a secret's setting it could be the secret itself.
      message:
        "still holds a placeholder from local.settings.sample.json (<...>): replace it with the real value",
    }));
}

/** Blank app settings are common in the portal; treat them as unset so defaults apply. */
function withoutBlanks(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== "") out[key] = value;
  }
  return out;
}

/**
 * Parses and checks every setting at once; throws a ConfigError listing every problem, each
 * naming its setting. Values are never echoed: several are secrets.
 */
/** loadVerifySettings on first call, kept (its ConfigError is thrown again on every call). */
function verifyOnce(env: Env): () => VerifySettings {
  let parsed: VerifySettings | undefined;
  return () => {
    parsed ??= loadVerifySettings(env);
    return parsed;
  };
}

/** loadPreflightSettings on first call, kept (its ConfigError is thrown again on every call). */
function preflightOnce(env: Env): () => PreflightSettings {
  let parsed: PreflightSettings | undefined;
  return () => {
    parsed ??= loadPreflightSettings(env);
    return parsed;
  };
}

/** loadAriSettings on first call, kept (its ConfigError is thrown again on every call). */
function ariOnce(env: Env): () => AriSettings {
  let parsed: AriSettings | undefined;
  return () => {
    parsed ??= loadAriSettings(env);
    return parsed;
  };
}

/** loadTransparencySettings on first call, kept (its ConfigError is thrown again on every call). */
function transparencyOnce(env: Env): () => TransparencySettings {
  let parsed: TransparencySettings | undefined;
  return () => {
    parsed ??= loadTransparencySettings(env);
    return parsed;
  };
}

/** loadEstateSettings on first call, kept (its ConfigError is thrown again on every call). */
function estateOnce(env: Env): () => EstateSettings {
  let parsed: EstateSettings | undefined;
  return () => {
    parsed ??= loadEstateSettings(env);
    return parsed;
  };
}

/** The default account's name: the one the single-account settings describe. */
export const DEFAULT_ACCOUNT = "default";

/** A text setting's default, as the schema gives it to an unset value. */
function defaultOf(name: keyof typeof schema.shape): string {
  return String(schema.shape[name].parse(undefined));
}

export function loadSettings(env: Env = process.env): Settings {
  const raw = withoutBlanks(env);
  const result = schema.safeParse(raw);
  // A placeholder is the one thing wrong with its setting: say that, not "must be a URL".
  const placeholders = placeholderProblems(raw);
  const held = new Set(placeholders.map((p) => p.name));
  const problems: Problem[] = [...schemaProblems(result, held), ...placeholders];
  const calendar = calendarDefaults(raw, windowTiming(result));
  problems.push(...calendar.problems);
  const declared = declaredAccounts(raw, result, held, problems, calendar.defaults);
  if (result.success) problems.push(...quotaWindowProblems(result.data));
  const defaultCalendar = calendarOf(calendar.defaults);
  // Each calendar that parsed, checked against the clock and the timer: one that never lets
  // a certificate be renewed is refused with the rest, naming the account, before anything
  // is sent.
  const single =
    raw[ACCOUNTS_SETTING] === undefined &&
    raw[ACCOUNTS_FILE_SETTING] === undefined &&
    calendar.problems.length === 0;
  const toCheck =
    declared ?? (single ? [{ name: DEFAULT_ACCOUNT, renewalCalendar: defaultCalendar }] : []);
  const checked = checkedCalendars(toCheck, {
    schedule: raw.CERTSCHED_RENEWAL_SCHEDULE,
    now: new Date(),
    declared: declared !== undefined,
  });
  problems.push(...checked.problems);
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  const s = result.data;
  const own = singleAccount(
    s,
    declared ? defaultCalendar : (checked.calendars[0] ?? defaultCalendar),
  );
  const accounts = declared
    ? declared.map((a, i) => ({ ...a, renewalCalendar: checked.calendars[i] ?? a.renewalCalendar }))
    : [own];
  const first = accounts[0] ?? own;
  const app = appSettings(env, s, own, first, accounts, declared !== undefined);
  // The app's settings carry the first account's service fields (one account: today's).
  return settingsOf(app, first);
}

/** CERTSCHED_WINDOW_MARGIN and _JITTER as parsed (their defaults while another is wrong). */
function windowTiming(result: Parsed): { marginMs: number; jitterMs: number } {
  if (!result.success) return NO_CALENDAR_DEFAULTS;
  return {
    marginMs: result.data.CERTSCHED_WINDOW_MARGIN,
    jitterMs: result.data.CERTSCHED_WINDOW_JITTER,
  };
}

type Parsed = ReturnType<typeof schema.safeParse>;
/** The settings as the schema parsed them. */
type Values = Extract<Parsed, { success: true }>["data"];

/** What the schema found wrong, each naming its setting; none for a setting `held` already. */
function schemaProblems(result: Parsed, held: ReadonlySet<string>): Problem[] {
  return (result.success ? [] : result.error.issues)
    .map((issue) => ({
      name: String(issue.path[0] ?? "(settings)"),
      message:
        issue.code === "invalid_type" && issue.message.includes("undefined")
          ? "is required"
          : issue.message,
    }))
    .filter((p) => !held.has(p.name));
}

/**
 * The accounts declared, if any. What is wrong with them, or with the single account's own
 * settings when none are declared, is added to `problems`.
 */
function declaredAccounts(
  raw: Record<string, string>,
  result: Parsed,
  held: ReadonlySet<string>,
  problems: Problem[],
  calendar: CalendarDefaults,
): AccountSettings[] | undefined {
  const source = accountsSource(raw);
  let declared: AccountSettings[] | undefined;
  if (source.kind === "invalid") problems.push(...source.problems);
  if (source.kind === "declared") {
    // Never a silent merge: a single-account setting beside declared accounts is a mistake.
    for (const name of SINGLE_ACCOUNT_SETTINGS) {
      if (raw[name] !== undefined && !held.has(name)) {
        problems.push({
          name,
          message: `must be unset when accounts are declared (${source.setting}): give it on each account instead`,
        });
      }
    }
    const parsed = parseAccounts(source.setting, source.text, {
      ...accountDefaults(raw, result),
      calendar,
    });
    if (parsed.ok) declared = parsed.accounts;
    else problems.push(...parsed.problems);
  } else if (source.kind === "none") {
    // Read from the raw values, so these are reported together with any other problem.
    // First, where the schema reported it when it was required there.
    if (raw.CERTSCHED_BASE_URL === undefined) {
      problems.unshift({ name: "CERTSCHED_BASE_URL", message: "is required" });
    }
    problems.push(...credentialProblems(raw));
  }
  return declared;
}

/** The one account of the single-account settings, named DEFAULT_ACCOUNT. */
function singleAccount(s: Values, calendar: RenewalCalendar): AccountSettings {
  const baseUrl = s.CERTSCHED_BASE_URL ?? "";
  return {
    name: DEFAULT_ACCOUNT,
    baseUrl,
    publicBaseUrl: s.CERTSCHED_PUBLIC_BASE_URL ?? `${baseUrl}/public`,
    subscription: s.CERTSCHED_SUBSCRIPTION,
    subscriptionId: s.CERTSCHED_SUBSCRIPTION_ID ?? s.CERTSCHED_SUBSCRIPTION,
    apiKey: s.CERTSCHED_API_KEY,
    apiKeySecretName: s.CERTSCHED_API_KEY_SECRET_NAME,
    tenantId: s.CERTSCHED_TENANT_ID,
    clientId: s.CERTSCHED_CLIENT_ID,
    clientSecret: s.CERTSCHED_CLIENT_SECRET,
    clientSecretSecretName: s.CERTSCHED_CLIENT_SECRET_SECRET_NAME,
    cloudCredential: s.CERTSCHED_CLOUD_CREDENTIAL,
    managedIdentityClientId: undefined,
    tokenUrl: s.CERTSCHED_TOKEN_URL,
    managementResource: s.CERTSCHED_MANAGEMENT_RESOURCE,
    vaultResource: s.CERTSCHED_VAULT_RESOURCE,
    serviceQuota: s.CERTSCHED_SERVICE_QUOTA,
    renewalCalendar: calendar,
  };
}

/** The app's settings: the single account's service fields, the accounts, and the rest. */
function appSettings(
  env: Env,
  s: Values,
  single: AccountSettings,
  first: AccountSettings,
  accounts: AccountSettings[],
  accountsDeclared: boolean,
): Settings {
  const { name: _single, ...service } = single;
  return {
    ...service,
    account: first.name,
    accounts,
    accountsDeclared,
    verify: verifyOnce(env),
    preflight: preflightOnce(env),
    ari: ariOnce(env),
    transparency: transparencyOnce(env),
    estate: estateOnce(env),
    publicAuth: s.CERTSCHED_PUBLIC_AUTH,
    keyVaultUrl: s.CERTSCHED_KEY_VAULT_URL,
    secretCacheTtlMs: s.CERTSCHED_SECRET_CACHE_TTL,
    renewalConcurrency: s.CERTSCHED_RENEWAL_CONCURRENCY,
    renewalConcurrencyMax: s.CERTSCHED_RENEWAL_CONCURRENCY_MAX,
    accountConcurrency: s.CERTSCHED_ACCOUNT_CONCURRENCY,
    deadAccountDays: s.CERTSCHED_DEAD_ACCOUNT_DAYS,
    renewalGraceMs: s.CERTSCHED_RENEWAL_GRACE,
    claimLeaseMs: s.CERTSCHED_CLAIM_LEASE,
    dryRun: s.CERTSCHED_DRY_RUN,
    httpTimeoutMs: s.CERTSCHED_HTTP_TIMEOUT,
    scheduleTimeoutMs: s.CERTSCHED_SCHEDULE_TIMEOUT,
    sweepDeadlineMs: s.CERTSCHED_SWEEP_DEADLINE,
    functionTimeoutMs: s.CERTSCHED_FUNCTION_TIMEOUT,
    storageConnectionString: s.AzureWebJobsStorage,
    ledgerTableUri: s.CERTSCHED_LEDGER_TABLE_URI,
    queueUri: s.CERTSCHED_QUEUE_URI,
    historyRetentionMs: s.CERTSCHED_HISTORY_RETENTION,
    webhookUrl: s.CERTSCHED_WEBHOOK_URL,
    webhookFormat: s.CERTSCHED_WEBHOOK_FORMAT,
    notifySuccess: s.CERTSCHED_NOTIFY_SUCCESS,
    appInsightsConnectionString: s.APPLICATIONINSIGHTS_CONNECTION_STRING,
    watch: s.CERTSCHED_WATCH.endpoints,
    watchVaults: s.CERTSCHED_WATCH.vaults,
    watchCertificates: s.CERTSCHED_WATCH_CERTIFICATES,
  };
}

/** What an account's unset fields default to: the app-wide settings, or their defaults. */
function accountDefaults(
  raw: Readonly<Record<string, string>>,
  result: ReturnType<typeof schema.safeParse>,
): AccountDefaults {
  const s = result.success ? result.data : undefined;
  return {
    tokenUrl: defaultOf("CERTSCHED_TOKEN_URL"),
    managementResource: defaultOf("CERTSCHED_MANAGEMENT_RESOURCE"),
    vaultResource: defaultOf("CERTSCHED_VAULT_RESOURCE"),
    apiKeySecretName:
      s?.CERTSCHED_API_KEY_SECRET_NAME ?? defaultOf("CERTSCHED_API_KEY_SECRET_NAME"),
    clientSecretSecretName:
      s?.CERTSCHED_CLIENT_SECRET_SECRET_NAME ?? defaultOf("CERTSCHED_CLIENT_SECRET_SECRET_NAME"),
    serviceQuota: s?.CERTSCHED_SERVICE_QUOTA,
    keyVaultUrl: raw.CERTSCHED_KEY_VAULT_URL,
  };
}

/**
 * Requests older than the history's retention are removed with it: a quota window longer than
 * that would count too few, and let certsched send more than the budget allows.
 */
function quotaWindowProblems(s: {
  CERTSCHED_SERVICE_QUOTA?: ServiceQuota | undefined;
  CERTSCHED_HISTORY_RETENTION: number;
}): Problem[] {
  const quota = s.CERTSCHED_SERVICE_QUOTA;
  if (quota === undefined || quota.windowMs <= s.CERTSCHED_HISTORY_RETENTION) return [];
  return [
    {
      name: "CERTSCHED_SERVICE_QUOTA",
      message: `its window (${quota.text}) must not be longer than CERTSCHED_HISTORY_RETENTION: requests older than the retention are no longer counted`,
    },
  ];
}

function required(name: string): Problem {
  return { name, message: "is required" };
}

/** The client-secret flow (the default) needs tenant, client id and a secret (direct or vault). */
function credentialProblems(raw: Record<string, string>): Problem[] {
  // Another value is either managed-identity or invalid, which the schema reports by name.
  if ((raw.CERTSCHED_CLOUD_CREDENTIAL ?? "client-secret") !== "client-secret") return [];
  const problems: Problem[] = [];
  if (!raw.CERTSCHED_TENANT_ID) problems.push(required("CERTSCHED_TENANT_ID"));
  if (!raw.CERTSCHED_CLIENT_ID) problems.push(required("CERTSCHED_CLIENT_ID"));
  if (!raw.CERTSCHED_CLIENT_SECRET && !raw.CERTSCHED_KEY_VAULT_URL) {
    problems.push({
      name: "CERTSCHED_CLIENT_SECRET",
      message: "is required unless CERTSCHED_KEY_VAULT_URL names the vault that holds it",
    });
  }
  return problems;
}
