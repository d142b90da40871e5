import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { parseServiceQuota, type ServiceQuota } from "../../core/quota/serviceQuota.js";
import type { AccountSettings } from "../../core/settings.js";
import type { RenewalCalendar } from "../../core/windows/calendar.js";
import { ensureError, type Problem } from "../../lib/errors.js";
import { directSecret, pathSegment, text, upstreamUrl } from "./schema.js";
import { accountCalendar, type CalendarDefaults, NO_CALENDAR_DEFAULTS } from "./windowSettings.js";

/**
 * Accounts (docs/contracts/accounts.md): CERTSCHED_ACCOUNTS holds a JSON array
 * of account objects, CERTSCHED_ACCOUNTS_FILE names a file holding one. Every problem of every
 * account is reported together, naming the account and the field; values are never quoted
 * (several are secrets).
 */

export const ACCOUNTS_SETTING = "CERTSCHED_ACCOUNTS";
export const ACCOUNTS_FILE_SETTING = "CERTSCHED_ACCOUNTS_FILE";

/** Settings of the one account that declared accounts replace: setting any of them is an error. */
export const SINGLE_ACCOUNT_SETTINGS = [
  "CERTSCHED_BASE_URL",
  "CERTSCHED_PUBLIC_BASE_URL",
  "CERTSCHED_SUBSCRIPTION",
  "CERTSCHED_SUBSCRIPTION_ID",
  "CERTSCHED_API_KEY",
  "CERTSCHED_TENANT_ID",
  "CERTSCHED_CLIENT_ID",
  "CERTSCHED_CLIENT_SECRET",
  "CERTSCHED_TOKEN_URL",
  "CERTSCHED_MANAGEMENT_RESOURCE",
  "CERTSCHED_VAULT_RESOURCE",
] as const;

/** An account name: 1–40 of a-z, 0-9 and "-" (it names tables, queue messages and rows). */
export const ACCOUNT_NAME = /^[a-z0-9-]{1,40}$/;

/** What the account fields default to: the single-account settings' defaults. */
export interface AccountDefaults {
  readonly tokenUrl: string;
  readonly managementResource: string;
  readonly vaultResource: string;
  readonly apiKeySecretName: string;
  readonly clientSecretSecretName: string;
  readonly serviceQuota: ServiceQuota | undefined;
  /** CERTSCHED_KEY_VAULT_URL: a `…Secret` field needs it. */
  readonly keyVaultUrl: string | undefined;
  /**
   * The renewal calendar of an account that declares no `windows`, `freezes` or
   * `certificatePolicy` (windowSettings.ts); unset: nothing declared.
   */
  readonly calendar?: CalendarDefaults | undefined;
}

const quota = z.string().transform((value, ctx) => {
  const parsed = parseServiceQuota(value);
  if (typeof parsed === "string") {
    ctx.addIssue({ code: "custom", message: parsed });
    return z.NEVER;
  }
  return parsed;
});

/** A Key Vault secret name: 1–127 of letters, digits and "-" (Key Vault's own rule). */
const secretName = z.string().regex(/^[0-9a-zA-Z-]{1,127}$/, {
  message: "must be a Key Vault secret name (1-127 of a-z, A-Z, 0-9, -)",
});

const account = z.strictObject({
  name: z.string().regex(ACCOUNT_NAME, { message: "must be 1-40 of a-z, 0-9 and -" }),
  baseUrl: upstreamUrl(),
  publicBaseUrl: upstreamUrl().optional(),
  subscription: pathSegment,
  subscriptionId: pathSegment.optional(),
  apiKey: directSecret.optional(),
  apiKeySecret: secretName.optional(),
  tenantId: pathSegment.optional(),
  clientId: text.optional(),
  clientSecret: directSecret.optional(),
  clientSecretSecret: secretName.optional(),
  identity: z
    .enum(["client-secret", "managed"], { error: 'must be "client-secret" or "managed"' })
    .optional(),
  managedIdentityClientId: text.optional(),
  tokenUrl: upstreamUrl().optional(),
  managementResource: text.optional(),
  vaultResource: text.optional(),
  quota: quota.optional(),
  // The renewal calendar's lists, read by windowSettings.ts (accountCalendar).
  windows: z.unknown().optional(),
  freezes: z.unknown().optional(),
  certificatePolicy: z.unknown().optional(),
});

type Parsed = z.infer<typeof account>;

/** Where the accounts were declared, as given (text) or not at all. */
export type AccountsSource =
  | { readonly kind: "none" }
  | { readonly kind: "declared"; readonly setting: string; readonly text: string }
  | { readonly kind: "invalid"; readonly problems: readonly Problem[] };

/**
 * Reads CERTSCHED_ACCOUNTS or the file CERTSCHED_ACCOUNTS_FILE names (relative to the working
 * directory); both set is an error.
 */
export function accountsSource(raw: Readonly<Record<string, string>>): AccountsSource {
  const inline = raw[ACCOUNTS_SETTING];
  const file = raw[ACCOUNTS_FILE_SETTING];
  if (inline !== undefined && file !== undefined) {
    return {
      kind: "invalid",
      problems: [
        {
          name: ACCOUNTS_SETTING,
          message: `and ${ACCOUNTS_FILE_SETTING} are both set: declare the accounts in one of them`,
        },
      ],
    };
  }
  if (inline !== undefined) return { kind: "declared", setting: ACCOUNTS_SETTING, text: inline };
  if (file === undefined) return { kind: "none" };
  try {
    return {
      kind: "declared",
      setting: ACCOUNTS_FILE_SETTING,
      text: readFileSync(resolve(file), "utf8"),
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "does not exist" : ensureError(error).message.split("\n")[0];
    return {
      kind: "invalid",
      problems: [
        { name: ACCOUNTS_FILE_SETTING, message: `names a file that cannot be read (${why})` },
      ],
    };
  }
}

/** How a problem in account `index` is named: the setting, the position, the name, the field. */
function where(setting: string, index: number, name: string | undefined, field?: string): string {
  const label = `${setting}[${index}]${name ? ` (account "${name}")` : ""}`;
  return field ? `${label}.${field}` : label;
}

/**
 * Parses the declared accounts' JSON into AccountSettings, or every problem found, each naming
 * the setting, the account and the field.
 */
export function parseAccounts(
  setting: string,
  json: string,
  defaults: AccountDefaults,
): { ok: true; accounts: AccountSettings[] } | { ok: false; problems: Problem[] } {
  let document: unknown;
  try {
    document = JSON.parse(json);
  } catch (error) {
    // JSON.parse's message quotes the text near the error: it could be a secret.
    const at = /position (\d+)/.exec(ensureError(error).message)?.[1];
    return {
      ok: false,
      problems: [
        {
          name: setting,
          message: `is not valid JSON${at ? ` (at character ${at})` : ""}: it must be an array of account objects`,
        },
      ],
    };
  }
  if (!Array.isArray(document) || document.length === 0) {
    return {
      ok: false,
      problems: [{ name: setting, message: "must be a non-empty JSON array of account objects" }],
    };
  }
  const problems: Problem[] = [];
  const accounts: AccountSettings[] = [];
  const seen = new Map<string, number>();
  document.forEach((item, index) => {
    const given: unknown =
      typeof item === "object" && item !== null ? (item as { name?: unknown }).name : undefined;
    const name = typeof given === "string" && ACCOUNT_NAME.test(given) ? given : undefined;
    const result = account.safeParse(item);
    if (!result.success) {
      for (const issue of result.error.issues) {
        const field = issue.path.length > 0 ? issue.path.map(String).join(".") : undefined;
        const unknown = issue.code === "unrecognized_keys";
        problems.push({
          name: unknown ? where(setting, index, name) : where(setting, index, name, field),
          message: unknown
            ? `has unknown field(s) ${issue.keys.join(", ")}: see docs/accounts.md for the fields`
            : issue.code === "invalid_type" && issue.message.endsWith("received undefined")
              ? "is required"
              : issue.code === "invalid_type" && field === undefined
                ? "must be an account object"
                : issue.message,
        });
      }
    }
    if (name !== undefined) {
      const first = seen.get(name);
      if (first !== undefined) {
        problems.push({
          name: where(setting, index, name, "name"),
          message: `repeats the name of ${setting}[${first}]: names must be unique`,
        });
      } else seen.set(name, index);
    }
    const calendar = accountCalendar(
      typeof item === "object" && item !== null ? item : {},
      (field) => where(setting, index, name, field),
      defaults.calendar ?? NO_CALENDAR_DEFAULTS,
    );
    problems.push(...calendar.problems);
    if (result.success) {
      const own = rulesOf(result.data, defaults);
      problems.push(
        ...own.map((p) => ({ name: where(setting, index, name, p.field), message: p.message })),
      );
      if (own.length === 0) accounts.push(toAccount(result.data, defaults, calendar.calendar));
    }
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, accounts };
}

/** The rules between fields: one of each secret's forms, credentials unless managed. */
function rulesOf(a: Parsed, d: AccountDefaults): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const oneOf = (direct: "apiKey" | "clientSecret") => {
    const secret = direct === "apiKey" ? "apiKeySecret" : "clientSecretSecret";
    if (a[direct] !== undefined && a[secret] !== undefined) {
      out.push({ field: direct, message: `and ${secret} are both set: give one of them` });
    } else if (a[direct] === undefined && a[secret] === undefined) {
      out.push({
        field: direct,
        message: `is required (or ${secret}, the name of a Key Vault secret holding it)`,
      });
    } else if (a[secret] !== undefined && d.keyVaultUrl === undefined) {
      out.push({
        field: secret,
        message: "needs CERTSCHED_KEY_VAULT_URL: the vault that holds the secret",
      });
    }
  };
  oneOf("apiKey");
  if ((a.identity ?? "client-secret") === "client-secret") {
    if (a.tenantId === undefined)
      out.push({ field: "tenantId", message: "is required (unless identity is managed)" });
    if (a.clientId === undefined)
      out.push({ field: "clientId", message: "is required (unless identity is managed)" });
    oneOf("clientSecret");
    if (a.managedIdentityClientId !== undefined) {
      out.push({ field: "managedIdentityClientId", message: 'is only for identity "managed"' });
    }
  }
  return out;
}

function toAccount(a: Parsed, d: AccountDefaults, calendar: RenewalCalendar): AccountSettings {
  return {
    name: a.name,
    baseUrl: a.baseUrl,
    publicBaseUrl: a.publicBaseUrl ?? `${a.baseUrl}/public`,
    subscription: a.subscription,
    subscriptionId: a.subscriptionId ?? a.subscription,
    apiKey: a.apiKey,
    apiKeySecretName: a.apiKeySecret ?? d.apiKeySecretName,
    tenantId: a.tenantId,
    clientId: a.clientId,
    clientSecret: a.clientSecret,
    clientSecretSecretName: a.clientSecretSecret ?? d.clientSecretSecretName,
    cloudCredential: a.identity === "managed" ? "managed-identity" : "client-secret",
    managedIdentityClientId: a.managedIdentityClientId,
    tokenUrl: a.tokenUrl ?? d.tokenUrl,
    managementResource: a.managementResource ?? d.managementResource,
    vaultResource: a.vaultResource ?? d.vaultResource,
    serviceQuota: a.quota ?? d.serviceQuota,
    renewalCalendar: calendar,
  };
}
