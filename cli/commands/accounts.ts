import type { AccountSettings } from "../../shared/core/settings.js";
import { requestedAccount, selectAccounts } from "../accounts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { cliSettings } from "../config.js";
import { EXIT } from "../exit.js";
import { palette } from "../output/color.js";
import { renderTable } from "../output/table.js";

const HELP = `Usage: certsched accounts [--account NAME] [--json]

Lists the accounts this deployment acts on: each one's name, service (base
URL), subscription and identity kind (client-secret or managed). Never a
secret: where the API key and client secret come from (inline or Key Vault),
not their values. Sends no request.

Accounts are declared by CERTSCHED_ACCOUNTS (JSON) or CERTSCHED_ACCOUNTS_FILE
(a path to the same JSON); without either there is one account, "default",
from the single-account CERTSCHED_* settings. Every other command takes
--account NAME to act on one of them.

Options:
  --account NAME  Show that account only.
  --json       Print one JSON document: { "declared", "accounts": [ { "name",
               "baseUrl", "publicBaseUrl", "subscription", "subscriptionId",
               "identity", "tenantId", "clientId", "apiKey", "clientSecret"
               ("inline", "key-vault" or "none": where each secret comes
               from), "apiKeySecret", "clientSecretSecret" (the Key Vault
               secrets' names, when read from it) } ] }.
  -h, --help   Show this help.

Exit codes: 0 listed; 2 usage or configuration error.
`;

/** Where a secret comes from: given inline, read from Key Vault by name, or not at all. */
type SecretSource = "inline" | "key-vault" | "none";

/** One account as `certsched accounts` shows it: identifiers and kinds, never a secret. */
export interface AccountView {
  readonly name: string;
  readonly baseUrl: string;
  readonly publicBaseUrl: string;
  readonly subscription: string | null;
  readonly subscriptionId: string | null;
  readonly identity: "client-secret" | "managed";
  readonly tenantId: string | null;
  readonly clientId: string | null;
  readonly apiKey: SecretSource;
  /** The Key Vault secret's name (a name, not the secret), when the API key is read from it. */
  readonly apiKeySecret?: string;
  readonly clientSecret: SecretSource;
  /** The Key Vault secret's name, when the client secret is read from it. */
  readonly clientSecretSecret?: string;
}

function source(inline: string | undefined, vault: boolean): SecretSource {
  if (inline !== undefined && inline !== "") return "inline";
  return vault ? "key-vault" : "none";
}

/** An account's view: the secrets' values never enter it, only where they come from. */
export function accountView(a: AccountSettings, keyVaultUrl: string | undefined): AccountView {
  const managed = a.cloudCredential === "managed-identity";
  const apiKey = source(a.apiKey, keyVaultUrl !== undefined);
  const clientSecret = managed ? "none" : source(a.clientSecret, keyVaultUrl !== undefined);
  return {
    name: a.name,
    baseUrl: a.baseUrl,
    publicBaseUrl: a.publicBaseUrl,
    subscription: a.subscription ?? null,
    subscriptionId: a.subscriptionId ?? null,
    identity: managed ? "managed" : "client-secret",
    tenantId: a.tenantId ?? null,
    clientId: (managed ? a.managedIdentityClientId : a.clientId) ?? null,
    apiKey,
    ...(apiKey === "key-vault" ? { apiKeySecret: a.apiKeySecretName } : {}),
    clientSecret,
    ...(clientSecret === "key-vault" ? { clientSecretSecret: a.clientSecretSecretName } : {}),
  };
}

export const accountsCommand: Command = {
  name: "accounts",
  help: HELP,
  options: { ...JSON_OPTION },
  maxPositionals: 0,
  run: async (args, io) => {
    const settings = await cliSettings(io, []);
    const names = selectAccounts(settings, requestedAccount(args), "accounts", "each");
    const views = settings.accounts
      .filter((a) => names.includes(a.name))
      .map((a) => accountView(a, settings.keyVaultUrl));
    if (args.values.json === true) {
      const document = { declared: settings.accountsDeclared, accounts: views };
      io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      return EXIT.ok;
    }
    const paint = palette(io.stdout, io.env);
    const lines = renderTable(
      [
        { heading: "ACCOUNT", shrink: 3 },
        { heading: "SERVICE", shrink: 1 },
        { heading: "SUBSCRIPTION", shrink: 2 },
        { heading: "IDENTITY" },
      ],
      views.map((v) => [v.name, v.baseUrl, v.subscription ?? "-", v.identity]),
      { header: paint.bold, width: io.stdout.columns },
    );
    if (!settings.accountsDeclared) {
      lines.push(
        "",
        "No accounts declared (CERTSCHED_ACCOUNTS, CERTSCHED_ACCOUNTS_FILE): one account, default, from the CERTSCHED_* settings.",
      );
    }
    io.stdout.write(`${lines.join("\n")}\n`);
    return EXIT.ok;
  },
};
