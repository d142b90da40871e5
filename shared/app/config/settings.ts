import { z } from "zod";
import { storageConnection } from "../../adapters/storage/storageConnection.js";
import { watchCertificateNames, watchEndpoints } from "../../core/inventory/watch.js";
import { parseServiceQuota, type ServiceQuota } from "../../core/quota/serviceQuota.js";
import { SCHEDULE_TIMEOUT_MAX_MS } from "../../core/renewal/callBudget.js";
import type { Env, Settings } from "../../core/settings.js";
import type { VerifySettings } from "../../core/verification/verifySettings.js";
import { ConfigError, type Problem } from "../../lib/errors.js";
import { MIN_SECRET_LENGTH, significantLength } from "../../lib/redact/secretForms.js";
import { DAY_MS } from "../../lib/time.js";
import { isSecureOrLoopback } from "../../lib/url.js";
import { duration } from "./duration.js";
import { loadVerifySettings } from "./verifySettings.js";

/** https anywhere; plain http only on loopback, so the simulator works and nothing else leaks. */
function upstreamUrl(options: { allowQuery?: boolean } = {}) {
  return z.string().transform((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an absolute URL" });
      return z.NEVER;
    }
    if (!isSecureOrLoopback(url)) {
      ctx.addIssue({
        code: "custom",
        message: "must use https (plain http is accepted only for loopback hosts)",
      });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: "custom", message: "must not carry credentials" });
      return z.NEVER;
    }
    if ((url.search && !options.allowQuery) || url.hash) {
      ctx.addIssue({
        code: "custom",
        message: options.allowQuery
          ? "must not have a fragment"
          : "must not have a query or fragment",
      });
      return z.NEVER;
    }
    return url.href.replace(/\/+$/, "");
  });
}

/**
 * AzureWebJobsStorage: every endpoint it names or implies (Blob, Queue, Table, the ones derived
 * from AccountName and DefaultEndpointsProtocol, the emulator's) under the same https-or-loopback
 * rule as every other address. The value itself is never quoted: it holds the account key.
 */
const storageConnectionString = z.string().superRefine((text, ctx) => {
  const connection = storageConnection(text);
  for (const message of connection.problems) ctx.addIssue({ code: "custom", message });
  for (const { source, url } of connection.endpoints) {
    if (!url) {
      ctx.addIssue({ code: "custom", message: `${source} must be an absolute URL` });
    } else if (!isSecureOrLoopback(url)) {
      ctx.addIssue({
        code: "custom",
        message: `${source} must use https (plain http is accepted only for loopback hosts)`,
      });
    }
  }
});

const flag = z
  .string()
  .default("false")
  .transform((text, ctx) => {
    const value = text.trim().toLowerCase();
    if (["true", "1", "yes"].includes(value)) return true;
    if (["false", "0", "no"].includes(value)) return false;
    ctx.addIssue({ code: "custom", message: "must be true or false" });
    return z.NEVER;
  });

const text = z.string().trim().min(1);

/**
 * A value that becomes one URL path segment. Encoding cannot protect "." and "..": URL parsers
 * (undici's included) resolve them, and their %2E forms, as dot segments, changing the path.
 */
const pathSegment = text.refine((value) => value !== "." && value !== "..", {
  message: 'must not be "." or "..": it would change the request path',
});

/**
 * CERTSCHED_API_KEY / CERTSCHED_CLIENT_SECRET given directly. A value with fewer than
 * MIN_SECRET_LENGTH characters besides whitespace is refused: it cannot be told apart from
 * ordinary words, so it could not be kept out of logs and responses (README, "Secrets").
 */
const directSecret = z.string().refine((value) => significantLength(value) >= MIN_SECRET_LENGTH, {
  message: `must hold at least ${MIN_SECRET_LENGTH} characters (not counting spaces): a shorter secret cannot be told apart from ordinary text, so certsched could not keep it out of logs and responses`,
});

const schema = z.object({
  CERTSCHED_BASE_URL: upstreamUrl(),
  CERTSCHED_PUBLIC_BASE_URL: upstreamUrl().optional(),
  CERTSCHED_SUBSCRIPTION: pathSegment.optional(),
  CERTSCHED_SUBSCRIPTION_ID: pathSegment.optional(),
  CERTSCHED_API_KEY: directSecret.optional(),
  CERTSCHED_PUBLIC_AUTH: z
    .enum(["none", "api-key"], { error: 'must be "none" or "api-key"' })
    .default("none"),
  CERTSCHED_TENANT_ID: pathSegment.optional(),
  CERTSCHED_CLIENT_ID: text.optional(),
  CERTSCHED_CLIENT_SECRET: directSecret.optional(),
  CERTSCHED_CLOUD_CREDENTIAL: z
    .enum(["client-secret", "managed-identity"], {
      error: 'must be "client-secret" or "managed-identity"',
    })
    .default("client-secret"),
  CERTSCHED_TOKEN_URL: upstreamUrl().default("https://login.microsoftonline.com"),
  CERTSCHED_MANAGEMENT_RESOURCE: text.default("https://management.core.windows.net/"),
  CERTSCHED_VAULT_RESOURCE: text.default("https://vault.azure.net"),
  CERTSCHED_KEY_VAULT_URL: upstreamUrl().optional(),
  CERTSCHED_API_KEY_SECRET_NAME: text.default("certsched-api-key"),
  CERTSCHED_CLIENT_SECRET_SECRET_NAME: text.default("certsched-client-secret"),
  CERTSCHED_SECRET_CACHE_TTL: duration("10m", 0, DAY_MS),
  CERTSCHED_RENEWAL_CONCURRENCY: z
    .string()
    .default("8")
    .transform((value, ctx) => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 64) {
        ctx.addIssue({ code: "custom", message: "must be a whole number from 1 to 64" });
        return z.NEVER;
      }
      return n;
    }),
  CERTSCHED_RENEWAL_GRACE: duration("2h", 0, 7 * DAY_MS),
  CERTSCHED_DRY_RUN: flag,
  CERTSCHED_HTTP_TIMEOUT: duration("30s", 100, 600_000),
  CERTSCHED_SCHEDULE_TIMEOUT: duration("120s", 100, SCHEDULE_TIMEOUT_MAX_MS),
  CERTSCHED_SERVICE_QUOTA: z
    .string()
    .transform((text, ctx) => {
      const parsed = parseServiceQuota(text);
      if (typeof parsed === "string") {
        ctx.addIssue({ code: "custom", message: parsed });
        return z.NEVER;
      }
      return parsed;
    })
    .optional(),
  // 1 s .. 24 h; plans with a longer functionTimeout than Consumption's 10 min may raise it.
  CERTSCHED_SWEEP_DEADLINE: duration("9m", 1_000, DAY_MS),
  AzureWebJobsStorage: storageConnectionString.optional(),
  CERTSCHED_LEDGER_TABLE_URI: upstreamUrl().optional(),
  CERTSCHED_QUEUE_URI: upstreamUrl().optional(),
  // 1 day .. 10 years; a year and a month by default, so last year's renewal is still there.
  CERTSCHED_HISTORY_RETENTION: duration("400d", DAY_MS, 3_650 * DAY_MS),
  // Webhook URLs carry their signature in the query (Teams workflows, Slack): keep it.
  CERTSCHED_WEBHOOK_URL: upstreamUrl({ allowQuery: true }).optional(),
  CERTSCHED_WEBHOOK_FORMAT: z
    .enum(["auto", "teams", "slack", "json"], {
      error: 'must be "auto", "teams", "slack" or "json"',
    })
    .default("auto"),
  CERTSCHED_NOTIFY_SUCCESS: flag,
  APPLICATIONINSIGHTS_CONNECTION_STRING: z.string().optional(),
  CERTSCHED_WATCH: watchEndpoints,
  CERTSCHED_WATCH_CERTIFICATES: watchCertificateNames,
});

/**
 * Every setting name certsched reads: the schema's, plus CERTSCHED_RENEWAL_SCHEDULE, which the
 * Functions host reads (the timer's %CERTSCHED_RENEWAL_SCHEDULE% binding expression). The CLI
 * warns about names that look like these but are not.
 */
export const KNOWN_SETTINGS: readonly string[] = [
  ...Object.keys(schema.shape),
  "CERTSCHED_RENEWAL_SCHEDULE",
  // The verification timer's %CERTSCHED_VERIFY_SCHEDULE%, read by the host too.
  "CERTSCHED_VERIFY_SCHEDULE",
  // Read by shared/app/config/verifySettings.ts, on their own: `verify --domain` needs no service.
  "CERTSCHED_VERIFY_CONNECT_TO",
  "CERTSCHED_VERIFY_WARN_DAYS",
  "CERTSCHED_VERIFY_WINDOW",
  "CERTSCHED_VERIFY_UNREACHABLE_AFTER",
];

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

export function loadSettings(env: Env = process.env): Settings {
  const raw = withoutBlanks(env);
  const result = schema.safeParse(raw);
  // A placeholder is the one thing wrong with its setting: say that, not "must be a URL".
  const placeholders = placeholderProblems(raw);
  const held = new Set(placeholders.map((p) => p.name));
  const problems: Problem[] = [
    ...(result.success ? [] : result.error.issues)
      .map((issue) => ({
        name: String(issue.path[0] ?? "(settings)"),
        message:
          issue.code === "invalid_type" && issue.message.includes("undefined")
            ? "is required"
            : issue.message,
      }))
      .filter((p) => !held.has(p.name)),
    ...placeholders,
  ];
  // Read from the raw values, so these are reported together with any other problem.
  problems.push(...credentialProblems(raw));
  if (result.success) problems.push(...quotaWindowProblems(result.data));
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  const s = result.data;
  return {
    verify: verifyOnce(env),
    baseUrl: s.CERTSCHED_BASE_URL,
    publicBaseUrl: s.CERTSCHED_PUBLIC_BASE_URL ?? `${s.CERTSCHED_BASE_URL}/public`,
    subscription: s.CERTSCHED_SUBSCRIPTION,
    subscriptionId: s.CERTSCHED_SUBSCRIPTION_ID ?? s.CERTSCHED_SUBSCRIPTION,
    apiKey: s.CERTSCHED_API_KEY,
    publicAuth: s.CERTSCHED_PUBLIC_AUTH,
    tenantId: s.CERTSCHED_TENANT_ID,
    clientId: s.CERTSCHED_CLIENT_ID,
    clientSecret: s.CERTSCHED_CLIENT_SECRET,
    cloudCredential: s.CERTSCHED_CLOUD_CREDENTIAL,
    tokenUrl: s.CERTSCHED_TOKEN_URL,
    managementResource: s.CERTSCHED_MANAGEMENT_RESOURCE,
    vaultResource: s.CERTSCHED_VAULT_RESOURCE,
    keyVaultUrl: s.CERTSCHED_KEY_VAULT_URL,
    apiKeySecretName: s.CERTSCHED_API_KEY_SECRET_NAME,
    clientSecretSecretName: s.CERTSCHED_CLIENT_SECRET_SECRET_NAME,
    secretCacheTtlMs: s.CERTSCHED_SECRET_CACHE_TTL,
    renewalConcurrency: s.CERTSCHED_RENEWAL_CONCURRENCY,
    renewalGraceMs: s.CERTSCHED_RENEWAL_GRACE,
    dryRun: s.CERTSCHED_DRY_RUN,
    httpTimeoutMs: s.CERTSCHED_HTTP_TIMEOUT,
    scheduleTimeoutMs: s.CERTSCHED_SCHEDULE_TIMEOUT,
    serviceQuota: s.CERTSCHED_SERVICE_QUOTA,
    sweepDeadlineMs: s.CERTSCHED_SWEEP_DEADLINE,
    storageConnectionString: s.AzureWebJobsStorage,
    ledgerTableUri: s.CERTSCHED_LEDGER_TABLE_URI,
    queueUri: s.CERTSCHED_QUEUE_URI,
    historyRetentionMs: s.CERTSCHED_HISTORY_RETENTION,
    webhookUrl: s.CERTSCHED_WEBHOOK_URL,
    webhookFormat: s.CERTSCHED_WEBHOOK_FORMAT,
    notifySuccess: s.CERTSCHED_NOTIFY_SUCCESS,
    appInsightsConnectionString: s.APPLICATIONINSIGHTS_CONNECTION_STRING,
    watch: s.CERTSCHED_WATCH,
    watchCertificates: s.CERTSCHED_WATCH_CERTIFICATES,
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
