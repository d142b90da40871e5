import { createHash } from "node:crypto";

/**
 * The base table names, here rather than in each store's module so that naming an account's
 * tables does not load the stores (the CLI builds every account's names at start, and starts
 * faster without them).
 */
/** Table in the app's own storage account (AzureWebJobsStorage); no extra infrastructure. */
export const LEDGER_TABLE = "certschedrenewals";
/** Next to the ledger's table, in the same account. */
export const HISTORY_TABLE = "certschedhistory";
/** Next to the ledger's table, in the same account. */
export const INVENTORY_TABLE = "certschedinventory";

/** The account whose rows live in the tables of a single-account deployment, unchanged. */
export const LEGACY_ACCOUNT = "default";

/** An account's tables: its ledger, its history (request counts and budget too), its inventory. */
export interface AccountTables {
  readonly ledger: string;
  readonly history: string;
  readonly inventory: string;
}

/**
 * The tables one account's rows live in: each account has its own, so one account's
 * rows are never read as another's, whatever its certificate names or ids. The account
 * "default" keeps the tables a single-account deployment always had (declare an account named
 * "default" to keep their rows). Another account's table is the base name, the account's name
 * without "-" (at most 28 characters) and 8 hex digits of its SHA-256: table names are 3-63
 * letters and digits, case-insensitive, so the hash keeps "a-b" and "ab" apart.
 */
export function accountTables(account: string): AccountTables {
  if (account === LEGACY_ACCOUNT) {
    return { ledger: LEDGER_TABLE, history: HISTORY_TABLE, inventory: INVENTORY_TABLE };
  }
  const tag = `${account.replace(/-/g, "").slice(0, 28)}${createHash("sha256").update(account).digest("hex").slice(0, 8)}`;
  return {
    ledger: `${LEDGER_TABLE}${tag}`,
    history: `${HISTORY_TABLE}${tag}`,
    inventory: `${INVENTORY_TABLE}${tag}`,
  };
}
