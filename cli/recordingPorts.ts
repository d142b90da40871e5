import type { AccountPorts } from "../shared/app/services.js";
import { type AccountChoice, withAccountPorts } from "./accountPorts.js";
import type { Need } from "./config.js";
import type { Io } from "./io.js";

/**
 * How to point the CLI at production's storage: said wherever the CLI reads or writes the
 * ledger and the history without any storage configured.
 */
export const PRODUCTION_STORAGE_NOTE =
  "To use production's ledger and history from your machine, set CERTSCHED_LEDGER_TABLE_URI=https://<account>.table.core.windows.net and sign in (az login): the CLI reaches it with your own Azure identity (DefaultAzureCredential), which needs the Storage Table Data Contributor role (Reader for status, history and runs); the deployed storage has shared keys off, so a connection string will not do.";

/**
 * Like withLedgerlessPorts, but with the ledger and the history the function app would use
 * (CERTSCHED_LEDGER_TABLE_URI, then AzureWebJobsStorage): a renewal made here is recorded as the
 * app records its own.
 */
export function withRecordingPorts<T>(
  io: Io,
  needs: readonly Need[],
  choice: Omit<AccountChoice, "scope">,
  work: (runtime: AccountPorts) => Promise<T>,
): Promise<T> {
  return withAccountPorts(io, needs, {}, choice, work);
}
