import type { Read } from "../../core/ports/history.js";
import type { LedgerRecord } from "../../core/ports/ledger.js";
import { CertschedError, ValidationError } from "../../lib/errors.js";
import { LEDGER_TABLE } from "./accountTables.js";
import { fromRow, PARTITION } from "./rows/ledgerRow.js";
import { failureOf, statusOf, type TableLocation, tableClient } from "./table.js";

export interface LedgerRowsOptions extends TableLocation {
  readonly tableName?: string;
  /** Longest wait for the listing, in ms; unset: no limit. */
  readonly timeoutMs?: number | undefined;
}

/**
 * Every ledger record, for people (certsched status): read-only, validated with the ledger's own
 * schema; a row that fails is named in `invalid`, never guessed at. A missing table is an empty
 * ledger. Throws LEDGER_UNAVAILABLE when the storage cannot be read.
 */
export async function listLedgerRows(options: LedgerRowsOptions): Promise<Read<LedgerRecord>> {
  const tableName = options.tableName ?? LEDGER_TABLE;
  const items: LedgerRecord[] = [];
  const invalid: string[] = [];
  try {
    const client = await tableClient(options, tableName);
    const rows = client.listEntities<Record<string, unknown>>({
      queryOptions: { filter: `PartitionKey eq '${PARTITION}'` },
      ...(options.timeoutMs === undefined
        ? {}
        : { abortSignal: AbortSignal.timeout(options.timeoutMs) }),
    });
    for await (const row of rows) {
      try {
        items.push(fromRow(row, tableName));
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        invalid.push(error.message);
      }
    }
  } catch (error) {
    if (statusOf(error) === 404) return { items, invalid };
    throw new CertschedError(
      "LEDGER_UNAVAILABLE",
      `renewal ledger: cannot read table ${tableName} (${failureOf(error)})`,
      { retriable: true, cause: error },
    );
  }
  return { items, invalid };
}
