import { z } from "zod";
import { storageConnection } from "../../adapters/storage/storageConnection.js";
import { watchCertificateNames } from "../../core/inventory/watch.js";
import { watchSetting } from "../../core/inventory/watchVaults.js";
import { parseServiceQuota } from "../../core/quota/serviceQuota.js";
import { SCHEDULE_TIMEOUT_MAX_MS } from "../../core/renewal/callBudget.js";
import { DAY_MS, HOUR_MS } from "../../lib/time.js";
import { isSecureOrLoopback } from "../../lib/url.js";
import { ARI_SETTINGS } from "./ariSettings.js";
import { directSecret } from "./directSecret.js";
import { duration } from "./duration.js";
import { ESTATE_SETTINGS } from "./estateSettings.js";
import { PREFLIGHT_SETTINGS } from "./preflightSettings.js";
import { TRANSPARENCY_SETTINGS } from "./transparencySettings.js";
import { upstreamUrl } from "./upstreamUrl.js";

export { directSecret, upstreamUrl };

import { wholeNumber } from "./wholeNumber.js";

/**
 * The zod schema of every certsched setting, with its default and range (loadSettings.ts parses
 * the environment with it; verify settings have their own in verifySettings.ts).
 */

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

export const text = z.string().trim().min(1);

/**
 * A value that becomes one URL path segment. Encoding cannot protect "." and "..": URL parsers
 * (undici's included) resolve them, and their %2E forms, as dot segments, changing the path.
 */
export const pathSegment = text.refine((value) => value !== "." && value !== "..", {
  message: 'must not be "." or "..": it would change the request path',
});

export const schema = z.object({
  // Required unless accounts are declared (loadSettings says so, by name).
  CERTSCHED_BASE_URL: upstreamUrl().optional(),
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
  CERTSCHED_RENEWAL_CONCURRENCY: z.string().default("8").pipe(wholeNumber(1, 64)),
  // The most adaptive concurrency grows to; unset: CERTSCHED_RENEWAL_CONCURRENCY.
  CERTSCHED_RENEWAL_CONCURRENCY_MAX: wholeNumber(1, 256).optional(),
  CERTSCHED_RENEWAL_GRACE: duration("2h", 0, 7 * DAY_MS),
  // How long an unsent claim keeps other sweeps away (decide.ts CLAIM_LEASE_MS).
  CERTSCHED_CLAIM_LEASE: duration("1m", 1_000, HOUR_MS),
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
  // host.json's functionTimeout, which the code cannot read: the whole timer run, bookkeeping
  // included, fits in it. 1 s .. 24 h; keep the two equal (test/infra pins the default to
  // host.json's).
  CERTSCHED_FUNCTION_TIMEOUT: duration("10m", 1_000, DAY_MS),
  AzureWebJobsStorage: storageConnectionString.optional(),
  CERTSCHED_LEDGER_TABLE_URI: upstreamUrl().optional(),
  CERTSCHED_QUEUE_URI: upstreamUrl().optional(),
  // Account runs in flight at once on one instance (the account worker's fan-out; 1..64).
  CERTSCHED_ACCOUNT_CONCURRENCY: z.string().default("4").pipe(wholeNumber(1, 64)),
  // Days in a row an account's credentials are refused before its part of a run says "dead"
  // (1..365).
  CERTSCHED_DEAD_ACCOUNT_DAYS: z
    .string()
    .default("3")
    .pipe(wholeNumber(1, 365, "days")),
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
  CERTSCHED_WATCH: watchSetting,
  CERTSCHED_WATCH_CERTIFICATES: watchCertificateNames,
  // The renewal calendar (app/config/windowSettings.ts reads the three JSON lists): the single
  // account's windows, freezes and policy, the defaults of declared accounts.
  CERTSCHED_RENEWAL_WINDOWS: z.string().optional(),
  CERTSCHED_RENEWAL_FREEZES: z.string().optional(),
  CERTSCHED_CERTIFICATE_POLICY: z.string().optional(),
  // How long before its expiry a certificate no longer waits for a window: the service's
  // completion time and a retry (1 h .. 60 d).
  CERTSCHED_WINDOW_MARGIN: duration("3d", HOUR_MS, 60 * DAY_MS, "1h to 60d"),
  // Each account's offset into an opening, so accounts do not all start at its first minute.
  CERTSCHED_WINDOW_JITTER: duration("30m", 0, 6 * HOUR_MS, "0 to 6h"),
  // Many accounts (docs/contracts/accounts.md): read by app/config/accounts.ts.
  CERTSCHED_ACCOUNTS: z.string().optional(),
  CERTSCHED_ACCOUNTS_FILE: text.optional(),
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
  "CERTSCHED_SYNC_WINDOW",
  "CERTSCHED_EVENT_RECHECK_FIRST",
  // The preflight timer's %CERTSCHED_PREFLIGHT_SCHEDULE%, read by the host.
  "CERTSCHED_PREFLIGHT_SCHEDULE",
  // Read by shared/app/config/preflightSettings.ts when preflight runs.
  ...PREFLIGHT_SETTINGS,
  // Read by shared/app/config/ariSettings.ts when ARI runs.
  ...ARI_SETTINGS,
  // The Certificate Transparency timer's %CERTSCHED_CT_SCHEDULE%, read by the host.
  "CERTSCHED_CT_SCHEDULE",
  // Read by shared/app/config/transparencySettings.ts when the watch or its surfaces run.
  ...TRANSPARENCY_SETTINGS,
  // Estate discovery's timer's %CERTSCHED_ESTATE_SCHEDULE%, read by the host.
  "CERTSCHED_ESTATE_SCHEDULE",
  ...ESTATE_SETTINGS,
];
