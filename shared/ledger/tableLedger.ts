import type { TableClient } from "@azure/data-tables";
import { quietKnownSdkWarnings } from "../azureSdkLog.js";
import { CertschedError } from "../errors.js";
import { isSecureOrLoopback } from "../settings.js";
import type { Ledger, LedgerEntry, LedgerOutcome, LedgerRecord } from "./ledger.js";
import { storageConnection } from "./storageConnection.js";

/** Table in the app's own storage account (AzureWebJobsStorage); no extra infrastructure. */
export const LEDGER_TABLE = "certschedrenewals";
const PARTITION = "certificate";

interface Row {
  partitionKey: string;
  rowKey: string;
  certificateName: string;
  expiryAtRequest: string;
  firstRequestedAt?: string;
  lastRequestedAt?: string;
  outcome: string;
  attempts: number;
  detail?: string;
}

function toRow(r: LedgerRecord): Row {
  return {
    partitionKey: PARTITION,
    rowKey: String(r.id),
    certificateName: r.certificateName,
    expiryAtRequest: r.expiryAtRequest.toISOString(),
    ...(r.firstRequestedAt ? { firstRequestedAt: r.firstRequestedAt.toISOString() } : {}),
    ...(r.lastRequestedAt ? { lastRequestedAt: r.lastRequestedAt.toISOString() } : {}),
    outcome: r.outcome,
    attempts: r.attempts,
    ...(r.detail ? { detail: r.detail.slice(0, 1000) } : {}),
  };
}

function date(value: unknown): Date | undefined {
  return typeof value === "string" ? new Date(value) : undefined;
}

function fromRow(row: Record<string, unknown>): LedgerRecord {
  return {
    id: Number(row.rowKey),
    certificateName: String(row.certificateName ?? ""),
    expiryAtRequest: date(row.expiryAtRequest) ?? new Date(0),
    firstRequestedAt: date(row.firstRequestedAt),
    lastRequestedAt: date(row.lastRequestedAt),
    outcome: String(row.outcome) as LedgerOutcome,
    attempts: Number(row.attempts ?? 0),
    detail: typeof row.detail === "string" ? row.detail : undefined,
  };
}

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
      try {
        const row = await (await getClient()).getEntity<Row>(PARTITION, String(id), limit());
        return { record: fromRow(row as unknown as Record<string, unknown>), etag: row.etag };
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw unavailable("read", tableName, error);
      }
    },
    async write(record, etag): Promise<LedgerEntry | "conflict"> {
      const table = await getClient();
      try {
        const result =
          etag === undefined
            ? await table.createEntity(toRow(record), limit())
            : await table.updateEntity(toRow(record), "Replace", { etag, ...limit() });
        return { record, etag: result.etag ?? "" };
      } catch (error) {
        const status = statusOf(error);
        if (status === 409 || status === 412) return "conflict";
        throw unavailable("write", tableName, error);
      }
    },
  };
}
