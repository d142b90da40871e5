import type { TableClient } from "@azure/data-tables";
import { quietKnownSdkWarnings } from "./azureSdkLog.js";
import { allowsPlainHttp } from "./tableLedger.js";

/** Where a table lives: the same rules as the ledger's (shared/adapters/storage/tableLedger.ts). */
export interface TableLocation {
  /** AzureWebJobsStorage connection string (local development, Azurite). */
  readonly connectionString?: string | undefined;
  /**
   * Table endpoint (CERTSCHED_LEDGER_TABLE_URI), reached with DefaultAzureCredential (the app's
   * managed identity, or an operator's own sign-in); wins over the connection string.
   */
  readonly tableUri?: string | undefined;
}

/** A TableClient for `tableName`; @azure/data-tables is imported here, on first use. */
export async function tableClient(where: TableLocation, tableName: string): Promise<TableClient> {
  const { TableClient: Client } = await import("@azure/data-tables");
  await quietKnownSdkWarnings();
  const retryOptions = { maxRetries: 2, retryDelayInMs: 200, maxRetryDelayInMs: 2_000 };
  if (where.tableUri) {
    const { DefaultAzureCredential } = await import("@azure/identity");
    return new Client(where.tableUri, tableName, new DefaultAzureCredential(), { retryOptions });
  }
  const connectionString = where.connectionString ?? "";
  return Client.fromConnectionString(connectionString, tableName, {
    allowInsecureConnection: allowsPlainHttp(connectionString),
    retryOptions,
  });
}

export function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number } | null)?.statusCode;
}

/** The SDK's failure in words: status, code, or a timeout; never the request. */
export function failureOf(error: unknown): string {
  const status = statusOf(error);
  const code = (error as { code?: string } | null)?.code;
  const timedOut = error instanceof Error && error.name === "AbortError";
  return String(status ?? code ?? (timedOut ? "no answer within the timeout" : "unknown error"));
}

/** One table reached lazily: the client made on first use, the table created on first write. */
export interface LazyTable {
  /** Options for one storage call: a fresh timeout signal (AbortSignal.timeout counts from now). */
  limit(): { abortSignal?: AbortSignal };
  /** The client, made once; a failure is not kept, so the next call tries again. */
  client(): Promise<TableClient>;
  /** Creates the table once (an existing one is fine); a failure is not kept either. */
  ensureTable(): Promise<void>;
}

export function lazyTable(
  where: TableLocation & { readonly timeoutMs?: number | undefined },
  tableName: string,
): LazyTable {
  let client: Promise<TableClient> | undefined;
  let created: Promise<void> | undefined;
  const limit = () =>
    where.timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(where.timeoutMs) };
  const getClient = () => {
    client ??= tableClient(where, tableName).catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };
  return {
    limit,
    client: getClient,
    async ensureTable() {
      created ??= (async () => {
        try {
          await (await getClient()).createTable(limit());
        } catch (error) {
          if (statusOf(error) !== 409) throw error;
        }
      })().catch((error: unknown) => {
        created = undefined;
        throw error;
      });
      await created;
    },
  };
}
