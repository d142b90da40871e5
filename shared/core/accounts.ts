import type { AccountField, AccountSettings, Settings } from "./settings.js";

/** Every per-account field, to copy an account's own over the app's settings. */
export const ACCOUNT_FIELDS: readonly AccountField[] = [
  "baseUrl",
  "publicBaseUrl",
  "subscription",
  "subscriptionId",
  "apiKey",
  "apiKeySecretName",
  "tenantId",
  "clientId",
  "clientSecret",
  "clientSecretSecretName",
  "cloudCredential",
  "managedIdentityClientId",
  "tokenUrl",
  "managementResource",
  "vaultResource",
  "serviceQuota",
] satisfies readonly AccountField[];

/** The settings one account runs with: the app's, with the account's own fields over them. */
export function settingsOf(settings: Settings, account: AccountSettings): Settings {
  const own: Partial<Settings> = {};
  for (const field of ACCOUNT_FIELDS) Object.assign(own, { [field]: account[field] });
  return { ...settings, ...own, account: account.name };
}
