import {
  type AccountTables,
  accountTables,
  LEGACY_ACCOUNT,
} from "../shared/adapters/storage/accountTables.js";
import type { TableLocation } from "../shared/adapters/storage/table.js";
import { ACCOUNTS_FILE_SETTING, ACCOUNTS_SETTING } from "../shared/app/config/accounts.js";
import { loadSettings } from "../shared/app/config/settings.js";
import { tableHistoryOnFirstUse } from "../shared/app/lazyAdapters.js";
import { type AccountPorts, createServices, type Services } from "../shared/app/services.js";
import type { History } from "../shared/core/ports/history.js";
import { ConfigError } from "../shared/lib/errors.js";
import type { AccountChoice } from "./accountPorts.js";
import { requestedAccount, selectAccounts } from "./accounts.js";
import { cliEnv, cliSettings } from "./config.js";
import { located } from "./failure.js";
import type { Io } from "./io.js";
import { wrapToWidth } from "./output/text.js";
import { PRODUCTION_STORAGE_NOTE } from "./recordingPorts.js";

/** The settings that lead to the storage; a problem with one of them is always reported. */
const STORAGE_SETTINGS = [
  "AzureWebJobsStorage",
  "CERTSCHED_LEDGER_TABLE_URI",
  "CERTSCHED_HTTP_TIMEOUT",
];

/** One account's part of the storage: its own tables (its history), and its service when configured. */
export interface AccountStorage {
  readonly account: string;
  readonly tables: AccountTables;
  readonly history: History;
  /** The account's runtime, when the service settings are complete; undefined: storage only. */
  readonly service: AccountPorts | undefined;
}

/** What status, history and runs read: the app's storage, and the service when configured. */
export interface StorageAccess {
  readonly where: TableLocation & { readonly timeoutMs: number };
  /** The accounts chosen (--account, else every one), in declaration order. */
  readonly accounts: readonly AccountStorage[];
  /** Whether more than one account is read: the output then names the account. */
  readonly many: boolean;
  /** Whether accounts are declared: history and runs then name the account of each row. */
  readonly declared: boolean;
  /** How many accounts are read at once (CERTSCHED_ACCOUNT_CONCURRENCY). */
  readonly concurrency: number;
  readonly now: () => Date;
}

/** Whether the environment declares accounts: their problems are then never "storage only". */
function declaresAccounts(env: Readonly<Record<string, string | undefined>>): boolean {
  return [ACCOUNTS_SETTING, ACCOUNTS_FILE_SETTING].some((name) => (env[name] ?? "").trim() !== "");
}

/** Where the tables are: the table endpoint or the connection string, and the timeout. */
interface StorageLocation {
  tableUri?: string;
  connectionString?: string;
  timeoutMs: number;
}

/** What the settings say about the storage, the accounts chosen and their services. */
interface StorageSettings {
  /** Every account's services; undefined when only the storage is configured. */
  readonly services: Services | undefined;
  readonly names: string[];
  readonly concurrency: number;
  readonly declared: boolean;
  readonly storage: StorageLocation;
}

/**
 * The settings for the storage: all of them when they are complete; else, when every problem is
 * the service's (and no accounts are declared), the storage's alone.
 */
async function storageSettings(io: Io, choice: AccountChoice): Promise<StorageSettings> {
  try {
    const settings = await cliSettings(io, []);
    const names = selectAccounts(
      settings,
      requestedAccount(choice.args),
      choice.command,
      choice.scope,
    );
    const services = createServices(settings, { requestTrigger: "cli" });
    return {
      services,
      names,
      concurrency: settings.accountConcurrency,
      declared: settings.accountsDeclared,
      storage: {
        tableUri: settings.ledgerTableUri,
        connectionString: settings.storageConnectionString,
        timeoutMs: settings.httpTimeoutMs,
      },
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return storageOnlySettings(io, choice, error);
  }
}

/** Storage alone: its settings checked by the same schema, the service's filled in unused. */
async function storageOnlySettings(
  io: Io,
  choice: AccountChoice,
  error: ConfigError,
): Promise<StorageSettings> {
  const own = error.problems.filter((p) => STORAGE_SETTINGS.includes(p.name));
  if (own.length > 0) throw new ConfigError(own);
  const { env } = await cliEnv({ ...io, stderr: { ...io.stderr, write: () => {} } });
  if (declaresAccounts(env)) throw error;
  const names = selectAccounts(
    { accounts: [{ name: LEGACY_ACCOUNT }] },
    requestedAccount(choice.args),
    choice.command,
    choice.scope,
  );
  const only = loadSettings({
    CERTSCHED_BASE_URL: "https://service.invalid",
    CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
    ...Object.fromEntries(STORAGE_SETTINGS.map((name) => [name, env[name]])),
  });
  return {
    services: undefined,
    names,
    concurrency: 4,
    declared: false,
    storage: {
      tableUri: only.ledgerTableUri,
      connectionString: only.storageConnectionString,
      timeoutMs: only.httpTimeoutMs,
    },
  };
}

/** Neither the table endpoint nor the connection string: the services closed, then a ConfigError. */
async function noStorage(io: Io, services: Services | undefined): Promise<never> {
  await services?.close();
  io.stderr.write(
    `${wrapToWidth(`certsched: ${PRODUCTION_STORAGE_NOTE}`, io.stderr.columns, "").join("\n")}\n`,
  );
  throw new ConfigError([
    {
      name: "CERTSCHED_LEDGER_TABLE_URI",
      message:
        "is required to read the ledger and the history (or AzureWebJobsStorage): they live in the function app's storage account",
    },
  ]);
}

/** Each account's tables, its history in them, and its service when configured. */
function accountStorages(
  names: readonly string[],
  where: StorageAccess["where"],
  services: Services | undefined,
): AccountStorage[] {
  return names.map((account) => {
    const tables = accountTables(account);
    return {
      account,
      tables,
      history: tableHistoryOnFirstUse({ ...where, tableName: tables.history }),
      service: services?.forAccount(account),
    };
  });
}

/**
 * The storage the function app uses, read with the same settings and rules (the table endpoint
 * with DefaultAzureCredential first, else the connection string), each account in its own
 * tables. The service's settings are optional here: with only the storage configured, everything
 * but the expiry still works (for the one account, "default").
 */
export async function withStorage<T>(
  io: Io,
  choice: AccountChoice,
  work: (access: StorageAccess) => Promise<T>,
): Promise<T> {
  const { services, names, concurrency, declared, storage } = await storageSettings(io, choice);
  if (!storage.tableUri && !storage.connectionString) await noStorage(io, services);
  const where = { ...storage };
  const accounts = accountStorages(names, where, services);
  try {
    return await work({
      where,
      accounts,
      many: accounts.length > 1,
      declared,
      concurrency,
      now: () => new Date(),
    });
  } catch (error) {
    const service = accounts[0]?.service;
    throw service ? located(error, service.settings) : error;
  } finally {
    await services?.close();
  }
}
