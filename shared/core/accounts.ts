import type { AccountField, AccountSettings, Settings } from "./settings.js";

/**
 * Every per-account field, each once: a record over AccountField, so a field added to the type
 * and not here (it would be dropped for every declared account) fails to compile.
 */
const FIELDS: Readonly<Record<AccountField, true>> = {
  baseUrl: true,
  publicBaseUrl: true,
  subscription: true,
  subscriptionId: true,
  apiKey: true,
  apiKeySecretName: true,
  tenantId: true,
  clientId: true,
  clientSecret: true,
  clientSecretSecretName: true,
  cloudCredential: true,
  managedIdentityClientId: true,
  tokenUrl: true,
  managementResource: true,
  vaultResource: true,
  serviceQuota: true,
  renewalCalendar: true,
};

/** Every per-account field, to copy an account's own over the app's settings. */
export const ACCOUNT_FIELDS = Object.keys(FIELDS) as readonly AccountField[];

/** The settings one account runs with: the app's, with the account's own fields over them. */
export function settingsOf(settings: Settings, account: AccountSettings): Settings {
  const own: Partial<Settings> = {};
  for (const field of ACCOUNT_FIELDS) Object.assign(own, { [field]: account[field] });
  return { ...settings, ...own, account: account.name };
}
