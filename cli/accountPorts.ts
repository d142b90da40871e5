import type { Seams } from "../shared/app/seams.js";
import { type AccountPorts, createServices, type Services } from "../shared/app/services.js";
import { noLedger } from "../shared/core/ports/ledger.js";
import type { Settings } from "../shared/core/settings.js";
import {
  type AccountOutcome,
  type AccountScope,
  overAccounts,
  requestedAccount,
  selectAccounts,
} from "./accounts.js";
import { cliSettings, type Need } from "./config.js";
import { located } from "./failure.js";
import type { Io } from "./io.js";
import type { ParsedArgs } from "./usage.js";

/** Which account(s) a command runs on: its --account, its name (for usage errors), its scope. */
export interface AccountChoice {
  readonly args: ParsedArgs;
  readonly command: string;
  readonly scope: AccountScope;
}

/** The settings, the one composition (every account's services) and the accounts chosen. */
export interface CliServices {
  readonly settings: Settings;
  readonly services: Services;
  /** The accounts the command acts on, in declaration order. */
  readonly accounts: readonly string[];
  /** Whether more than one account is acted on: the output then names the account. */
  readonly many: boolean;
  /** `work` on each chosen account's runtime, settings.accountConcurrency at once. */
  each<T>(
    work: (runtime: AccountPorts, account: string) => Promise<T>,
  ): Promise<AccountOutcome<T>[]>;
}

/**
 * Reads the settings, builds ONE composition (with `overrides`, or what they make of the settings) for every account (services.forAccount(name) per
 * account), chooses the accounts, runs `work`, and always closes it, so the process exits
 * without waiting on idle sockets. A failure carries the settings it happened under, so its
 * report can say where it looked.
 */
export async function withServices<T>(
  io: Io,
  needs: readonly Need[],
  overrides: Seams | ((settings: Settings) => Seams),
  choice: AccountChoice,
  work: (cli: CliServices) => Promise<T>,
): Promise<T> {
  const settings = await cliSettings(io, needs);
  const accounts = selectAccounts(
    settings,
    requestedAccount(choice.args),
    choice.command,
    choice.scope,
  );
  const seams = typeof overrides === "function" ? overrides(settings) : overrides;
  const services = createServices(settings, { requestTrigger: "cli", ...seams });
  const each = <R>(fn: (runtime: AccountPorts, account: string) => Promise<R>) =>
    overAccounts(accounts, settings.accountConcurrency, async (account) => {
      const runtime = services.forAccount(account);
      try {
        return await fn(runtime, account);
      } catch (error) {
        throw located(error, runtime.settings);
      }
    });
  try {
    return await work({ settings, services, accounts, many: accounts.length > 1, each });
  } catch (error) {
    throw located(error, settings);
  } finally {
    await services.close();
  }
}

/**
 * The runtime of the one account a command acts on (`--account`, or the only one), with
 * `overrides`; its failure thrown as it is (located under that account's settings).
 */
export function withAccountPorts<T>(
  io: Io,
  needs: readonly Need[],
  overrides: Seams,
  choice: Omit<AccountChoice, "scope">,
  work: (runtime: AccountPorts) => Promise<T>,
): Promise<T> {
  return withServices(io, needs, overrides, { ...choice, scope: "one" }, async (cli) => {
    const runtime = cli.services.forAccount(cli.accounts[0]);
    try {
      return await work(runtime);
    } catch (error) {
      throw located(error, runtime.settings);
    }
  });
}

/**
 * `{ account }` when accounts are declared, else nothing: what create, renew and get add to
 * their --json document, so a single-account deployment's stays as it was.
 */
export function declaredAccount(runtime: Pick<AccountPorts, "settings">): { account?: string } {
  return runtime.settings.accountsDeclared ? { account: runtime.settings.account } : {};
}

/**
 * The runtime for one command that is not a sweep (no ledger needed): the one account it acts
 * on. `needs` are the settings the command needs beyond the common ones, reported with them in
 * one message.
 */
export function withLedgerlessPorts<T>(
  io: Io,
  needs: readonly Need[],
  choice: Omit<AccountChoice, "scope">,
  work: (runtime: AccountPorts) => Promise<T>,
): Promise<T> {
  return withAccountPorts(io, needs, { ledger: noLedger }, choice, work);
}
