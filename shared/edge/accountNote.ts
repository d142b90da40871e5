import type { Settings } from "../core/settings.js";

/**
 * What a log line adds to name its account: ` (account NAME)` when accounts are
 * declared, nothing otherwise, so a single-account deployment's lines (and the alert rules and
 * searches that match them) stay as they were.
 */
export function accountNote(settings: Pick<Settings, "account" | "accountsDeclared">): string {
  return settings.accountsDeclared ? ` (account ${settings.account})` : "";
}
