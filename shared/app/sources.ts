import { accountTables } from "../adapters/storage/accountTables.js";
import { listLedgerRows } from "../adapters/storage/ledgerRows.js";
import type { StatusSources } from "../core/status/statusSources.js";
import type { DashboardSources } from "../usecases/dashboard.js";
import type { AccountPorts } from "./services.js";

/**
 * What the status view and the dashboard read, wired from the runtime: its inventory, and the
 * ledger's table read with the runtime's own settings: the runtime's account's own table
 * (adapters/storage/accountTables.ts), so one account's rows are never listed as another's. A
 * ledger that is not a table (none, or an in-process one) has no rows to list here.
 */
export function statusSourcesOf(runtime: AccountPorts): StatusSources {
  const { settings } = runtime;
  return {
    inventory: runtime.inventory,
    ledgerRows: async () =>
      runtime.ledger.kind === "table"
        ? listLedgerRows({
            tableUri: settings.ledgerTableUri,
            connectionString: settings.storageConnectionString,
            timeoutMs: settings.httpTimeoutMs,
            tableName: accountTables(runtime.account).ledger,
          })
        : { items: [], invalid: [] },
    ledgerRow: async (id) => (await runtime.ledger.read(id))?.record,
  };
}

/** What the dashboard reads: the runtime's inventory, ledger rows and history. */
export function dashboardSourcesOf(runtime: AccountPorts): DashboardSources {
  return { status: statusSourcesOf(runtime), history: runtime.history };
}
