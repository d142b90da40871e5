import type { TableClient } from "@azure/data-tables";
import { CertschedError } from "../errors.js";
import type { Ledger, LedgerEntry, LedgerOutcome, LedgerRecord } from "./ledger.js";

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

function unavailable(action: string, error: unknown): CertschedError {
  const status = statusOf(error);
  const code = (error as { code?: string } | null)?.code;
  return new CertschedError(
    "LEDGER_UNAVAILABLE",
    `renewal ledger: cannot ${action} table ${LEDGER_TABLE} (${status ?? code ?? "unknown error"})`,
    { retriable: true, cause: error },
  );
}

export interface TableLedgerOptions {
  /** AzureWebJobsStorage connection string. */
  readonly connectionString: string;
  readonly tableName?: string;
}

/** The ledger in Azure Table storage; @azure/data-tables is imported on first use. */
export function tableLedger(options: TableLedgerOptions): Ledger {
  let client: Promise<TableClient> | undefined;
  const getClient = () => {
    client ??= import("@azure/data-tables").then(({ TableClient: Client }) => {
      const local = /UseDevelopmentStorage=true|https?:\/\/(127\.|localhost)/i.test(
        options.connectionString,
      );
      return Client.fromConnectionString(
        options.connectionString,
        options.tableName ?? LEDGER_TABLE,
        {
          allowInsecureConnection: local,
          retryOptions: { maxRetries: 2, retryDelayInMs: 200, maxRetryDelayInMs: 2_000 },
        },
      );
    });
    return client;
  };
  return {
    kind: "table",
    async open() {
      try {
        await (await getClient()).createTable();
      } catch (error) {
        if (statusOf(error) !== 409) throw unavailable("open", error);
      }
    },
    async read(id) {
      try {
        const row = await (await getClient()).getEntity<Row>(PARTITION, String(id));
        return { record: fromRow(row as unknown as Record<string, unknown>), etag: row.etag };
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw unavailable("read", error);
      }
    },
    async write(record, etag): Promise<LedgerEntry | "conflict"> {
      const table = await getClient();
      try {
        const result =
          etag === undefined
            ? await table.createEntity(toRow(record))
            : await table.updateEntity(toRow(record), "Replace", { etag });
        return { record, etag: result.etag ?? "" };
      } catch (error) {
        const status = statusOf(error);
        if (status === 409 || status === 412) return "conflict";
        throw unavailable("write", error);
      }
    },
  };
}
