import type { TableClient } from "@azure/data-tables";
import type { Ledger, LedgerEntry } from "../../core/ports/ledger.js";
import { CertschedError } from "../../lib/errors.js";
import { isSecureOrLoopback } from "../../lib/url.js";
import { quietKnownSdkWarnings } from "./azureSdkLog.js";
import { fromRow, PARTITION, type Row, toRow } from "./rows/ledgerRow.js";
import { storageConnection } from "./storageConnection.js";

/** Table in the app's own storage account (AzureWebJobsStorage); no extra infrastructure. */
export const LEDGER_TABLE = "certschedrenewals";

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number } | null)?.statusCode;
}

function unavailable(action: string, table: string, error: unknown): CertschedError {
  const status = statusOf(error);
  const code = (error as { code?: string } | null)?.code;
  const timedOut = error instanceof Error && error.name === "AbortError";
  return new CertschedError(
    "LEDGER_UNAVAILABLE",
    `renewal ledger: cannot ${action} table ${table} (${
      status ?? code ?? (timedOut ? "no answer within the timeout" : "unknown error")
    })`,
    { retriable: true, cause: error },
  );
}

export interface TableLedgerOptions {
  /** AzureWebJobsStorage connection string (local development, Azurite). */
  readonly connectionString?: string | undefined;
  /**
   * Table endpoint (CERTSCHED_LEDGER_TABLE_URI), reached with DefaultAzureCredential (the app's
   * managed identity); wins over the connection string.
   */
  readonly tableUri?: string | undefined;
  readonly tableName?: string;
  /**
   * Longest wait for one ledger call, in ms (CERTSCHED_HTTP_TIMEOUT), SDK retries included: a
   * storage account that never answers must not hang the sweep. Unset: no limit.
   */
  readonly timeoutMs?: number | undefined;
}

/**
 * Plain http only to a loopback table endpoint (Azurite), by the rule the settings enforce;
 * anything else goes out over https or not at all (the SDK refuses http without this flag).
 */
export function allowsPlainHttp(connectionString: string): boolean {
  const table = storageConnection(connectionString).table;
  return table?.protocol === "http:" && isSecureOrLoopback(table);
}

/** The ledger in Azure Table storage; @azure/data-tables is imported on first use. */
export function tableLedger(options: TableLedgerOptions): Ledger {
  const tableName = options.tableName ?? LEDGER_TABLE;
  let client: Promise<TableClient> | undefined;
  const getClient = () => {
    client ??= import("@azure/data-tables").then(async ({ TableClient: Client }) => {
      await quietKnownSdkWarnings();
      const retryOptions = { maxRetries: 2, retryDelayInMs: 200, maxRetryDelayInMs: 2_000 };
      if (options.tableUri) {
        const { DefaultAzureCredential } = await import("@azure/identity");
        return new Client(options.tableUri, tableName, new DefaultAzureCredential(), {
          retryOptions,
        });
      }
      const connectionString = options.connectionString ?? "";
      return Client.fromConnectionString(connectionString, tableName, {
        allowInsecureConnection: allowsPlainHttp(connectionString),
        retryOptions,
      });
    });
    return client;
  };
  // A fresh signal per call: AbortSignal.timeout starts counting when it is made.
  const limit = () =>
    options.timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(options.timeoutMs) };
  return {
    kind: "table",
    async open() {
      try {
        await (await getClient()).createTable(limit());
      } catch (error) {
        if (statusOf(error) !== 409) throw unavailable("open", tableName, error);
      }
    },
    async read(id) {
      let row: Record<string, unknown> & { etag: string };
      try {
        row = await (await getClient()).getEntity(PARTITION, String(id), limit());
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw unavailable("read", tableName, error);
      }
      // Outside the try: a row that fails validation is not an unavailable ledger.
      return { record: fromRow(row, tableName), etag: row.etag };
    },
    async write(record, etag): Promise<LedgerEntry | "conflict"> {
      const table = await getClient();
      try {
        const result =
          etag === undefined
            ? await table.createEntity<Row>(toRow(record), limit())
            : await table.updateEntity<Row>(toRow(record), "Replace", { etag, ...limit() });
        return { record, etag: result.etag ?? "" };
      } catch (error) {
        const status = statusOf(error);
        if (status === 409 || status === 412) return "conflict";
        throw unavailable("write", tableName, error);
      }
    },
  };
}
