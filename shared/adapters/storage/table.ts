import type { TableClient } from "@azure/data-tables";
import { CertschedError, type ErrorCode } from "../../lib/errors.js";
import { isSecureOrLoopback } from "../../lib/url.js";
import { quietKnownSdkWarnings } from "./azureSdkLog.js";
import { storageConnection } from "./storageConnection.js";

/**
 * Table storage as every store here uses it: one lazily made client per table (lazyTable), a row
 * read with its ETag (readRow), a conditional insert or replace where 409 and 412 mean
 * "conflict" (writeRow), the store's error for an unreachable table (unavailableError), and
 * retention deleting old rows a page at a time (removeOld).
 */

/**
 * Plain http only to a loopback table endpoint (Azurite), by the rule the settings enforce;
 * anything else goes out over https or not at all (the SDK refuses http without this flag).
 */
export function allowsPlainHttp(connectionString: string): boolean {
  const table = storageConnection(connectionString).table;
  return table?.protocol === "http:" && isSecureOrLoopback(table);
}

/** Where a table lives: the app's own storage account, by either of two ways in. */
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

/** A row as read back, with the version a conditional write names. */
export type StoredRow = Record<string, unknown> & { etag: string };

/** The row's keys: all a delete needs. */
export interface RowKeys {
  readonly partitionKey: string;
  readonly rowKey: string;
}

/**
 * The store's error for a table it cannot reach, one shape for every store:
 * `<what>: cannot <action> table <name> (<failure>)`, retriable, the SDK's error as the cause.
 */
export function unavailableError(
  code: ErrorCode,
  what: string,
  tableName: string,
): (action: string, error: unknown) => CertschedError {
  return (action, error) =>
    new CertschedError(code, `${what}: cannot ${action} table ${tableName} (${failureOf(error)})`, {
      retriable: true,
      cause: error,
    });
}

/**
 * One row and its ETag; undefined when there is none (404: no row, or no table yet). Any other
 * failure is thrown as the SDK's, for the store to name.
 */
export async function readRow(
  table: LazyTable,
  partitionKey: string,
  rowKey: string,
  select?: readonly string[],
): Promise<StoredRow | undefined> {
  try {
    return await (await table.client()).getEntity<Record<string, unknown>>(partitionKey, rowKey, {
      ...(select === undefined ? {} : { queryOptions: { select: [...select] } }),
      ...table.limit(),
    });
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}

/** Another writer got there first (409: the row exists; 412: it changed): the SDK's error. */
export interface Conflict {
  readonly conflict: unknown;
}

/**
 * Inserts `row` (no `etag`), or replaces the stored one only while it is still at `etag`: the
 * new ETag, or the Conflict when another writer got there first (409 or 412). Any other failure
 * is thrown as the SDK's.
 */
export async function writeRow<T extends object>(
  table: LazyTable,
  row: T & RowKeys,
  etag?: string,
): Promise<{ etag: string } | Conflict> {
  const client = await table.client();
  try {
    const result =
      etag === undefined
        ? await client.createEntity<T>(row, table.limit())
        : await client.updateEntity<T>(row, "Replace", { etag, ...table.limit() });
    return { etag: result.etag ?? "" };
  } catch (error) {
    const status = statusOf(error);
    if (status === 409 || status === 412) return { conflict: error };
    throw error;
  }
}

export interface Retention {
  /** The rows past retention (an OData filter): by age, however each table keeps it. */
  readonly filter: string;
  /** Properties to read of each row: the keys, and what `keep` looks at. */
  readonly select: readonly string[];
  /** A matching row to leave all the same (its age by another clock not yet past, say). */
  readonly keep?: (row: Record<string, unknown>) => boolean;
  /** Deletes in flight at once: the rows go in pages of this many. */
  readonly concurrency: number;
}

/**
 * Deletes every row `retention` picks, a page of `concurrency` at a time; the rows removed. A row
 * gone already counts as removed by someone else (the aim is met), a missing table as nothing
 * to remove; any other failure is thrown as the SDK's.
 */
export async function removeOld(table: LazyTable, retention: Retention): Promise<number> {
  let removed = 0;
  try {
    const client = await table.client();
    const keys: RowKeys[] = [];
    const rows = client.listEntities<Record<string, unknown>>({
      queryOptions: { filter: retention.filter, select: [...retention.select] },
      ...table.limit(),
    });
    for await (const row of rows) {
      if (typeof row.partitionKey !== "string" || typeof row.rowKey !== "string") continue;
      if (retention.keep?.(row)) continue;
      keys.push({ partitionKey: row.partitionKey, rowKey: row.rowKey });
    }
    for (let i = 0; i < keys.length; i += retention.concurrency) {
      await Promise.all(
        keys.slice(i, i + retention.concurrency).map(async (k) => {
          try {
            await client.deleteEntity(k.partitionKey, k.rowKey, table.limit());
            removed += 1;
          } catch (error) {
            if (statusOf(error) !== 404) throw error;
          }
        }),
      );
    }
  } catch (error) {
    if (statusOf(error) === 404 && removed === 0) return 0;
    throw error;
  }
  return removed;
}

/** A string as an OData literal in a table filter: quoted, its quotes doubled. */
export const odataLiteral = (text: string) => `'${text.replaceAll("'", "''")}'`;
