import type { Ledger, LedgerEntry } from "../../core/ports/ledger.js";
import { fromRow, PARTITION, type Row, toRow } from "./rows/ledgerRow.js";
import {
  lazyTable,
  readRow,
  statusOf,
  type TableLocation,
  unavailableError,
  writeRow,
} from "./table.js";

/** Plain http to Azurite only: the rule lives with the table client (table.ts). */

import { LEDGER_TABLE } from "./accountTables.js";

export { LEDGER_TABLE };

export interface TableLedgerOptions extends TableLocation {
  readonly tableName?: string;
  /**
   * Longest wait for one ledger call, in ms (CERTSCHED_HTTP_TIMEOUT), SDK retries included: a
   * storage account that never answers must not hang the sweep. Unset: no limit.
   */
  readonly timeoutMs?: number | undefined;
}

/** The ledger in Azure Table storage; @azure/data-tables is imported on first use. */
export function tableLedger(options: TableLedgerOptions): Ledger {
  const tableName = options.tableName ?? LEDGER_TABLE;
  const table = lazyTable(options, tableName);
  const unavailable = unavailableError("LEDGER_UNAVAILABLE", "renewal ledger", tableName);
  return {
    kind: "table",
    async open() {
      // Every open asks for the table (not once, as ensureTable): one deleted meanwhile returns.
      try {
        await (await table.client()).createTable(table.limit());
      } catch (error) {
        if (statusOf(error) !== 409) throw unavailable("open", error);
      }
    },
    async read(id) {
      let row: Awaited<ReturnType<typeof readRow>>;
      try {
        row = await readRow(table, PARTITION, String(id));
      } catch (error) {
        throw unavailable("read", error);
      }
      if (row === undefined) return undefined;
      // Outside the try: a row that fails validation is not an unavailable ledger.
      return { record: fromRow(row, tableName), etag: row.etag };
    },
    async write(record, etag): Promise<LedgerEntry | "conflict"> {
      // The client outside the try: a client that cannot be made is thrown as it is.
      await table.client();
      let written: Awaited<ReturnType<typeof writeRow>>;
      try {
        written = await writeRow<Row>(table, toRow(record), etag);
      } catch (error) {
        throw unavailable("write", error);
      }
      return "conflict" in written ? "conflict" : { record, etag: written.etag };
    },
  };
}
