import { UsageError } from "../shared/lib/errors.js";
import { mapWithConcurrency } from "../shared/lib/pool.js";
import { oneLine } from "./output/text.js";
import type { ParsedArgs } from "./usage.js";

/**
 * Many accounts on the command line (docs/contracts/accounts.md, "The CLI"):
 * which accounts a command acts on, and running it over each, bounded.
 */

/** How a command treats accounts: every account unless one is named, or exactly one. */
export type AccountScope = "each" | "one";

/** The --account flag's value, when given. */
export function requestedAccount(args: ParsedArgs): string | undefined {
  const value = args.values.account;
  return typeof value === "string" ? value : undefined;
}

const listed = (names: readonly string[]) => names.map((n) => `'${n}'`).join(", ");

/**
 * The accounts a command acts on, in declaration order: the one --account names (an unknown
 * name is a UsageError listing the known ones), else every account ("each") or the only one
 * ("one": with several declared, --account is required).
 */
export function selectAccounts(
  settings: { readonly accounts: readonly { readonly name: string }[] },
  requested: string | undefined,
  command: string,
  scope: AccountScope,
): string[] {
  const names = settings.accounts.map((a) => a.name);
  if (requested !== undefined) {
    if (!names.includes(requested)) {
      throw new UsageError(
        `--account '${oneLine(requested)}' is unknown: the accounts are ${listed(names)}`,
        command,
      );
    }
    return [requested];
  }
  if (scope === "one" && names.length > 1) {
    throw new UsageError(
      `${command} acts on one account: name it with --account NAME (the accounts are ${listed(names)})`,
      command,
    );
  }
  return scope === "one" ? names.slice(0, 1) : names;
}

/** One account's part of a command over several: its value, or the error that stopped it. */
export type AccountOutcome<T> =
  | { readonly account: string; readonly ok: true; readonly value: T }
  | { readonly account: string; readonly ok: false; readonly error: unknown };

/**
 * `work` for each account, at most `concurrency` at once, in declaration order. One account's
 * failure is its own outcome: the others still run (one account down changes nothing for them).
 */
export function overAccounts<T>(
  accounts: readonly string[],
  concurrency: number,
  work: (account: string) => Promise<T>,
): Promise<AccountOutcome<T>[]> {
  return mapWithConcurrency(accounts, concurrency, async (account) => {
    try {
      return { account, ok: true as const, value: await work(account) };
    } catch (error) {
      return { account, ok: false as const, error };
    }
  });
}

/** `{ account, ...value }`: the account first, as every --json result object carries it. */
export function withAccount<T extends object>(account: string, value: T): { account: string } & T {
  return { account, ...value };
}

/** One account's line in a --json document's "accounts": whether it failed, and why. */
export interface AccountEntry {
  readonly name: string;
  readonly failed: boolean;
  readonly problems: readonly string[];
}

/** The "accounts" entries of a command over several accounts, in declaration order. */
export function accountsEntries(
  outcomes: readonly AccountOutcome<unknown>[],
  failures: readonly { readonly account: string; readonly message: string }[],
): AccountEntry[] {
  return outcomes.map((o) => {
    const problems = failures.filter((f) => f.account === o.account).map((f) => f.message);
    return { name: o.account, failed: problems.length > 0, problems };
  });
}
