import type { Runtime } from "../shared/app/services.js";
import type { Need } from "./config.js";
import type { Io } from "./io.js";
import { type AccountChoice, withAccountRuntime } from "./runtime.js";

/**
 * How to point the CLI at production's storage: said wherever the CLI reads or writes the
 * ledger and the history without any storage configured.
 */
export const PRODUCTION_STORAGE_NOTE =
  "To use production's ledger and history from your machine, set CERTSCHED_LEDGER_TABLE_URI=https://<account>.table.core.windows.net and sign in (az login): the CLI reaches it with your own Azure identity (DefaultAzureCredential), which needs the Storage Table Data Contributor role (Reader for status, history and runs); the deployed storage has shared keys off, so a connection string will not do.";

/**
 * Like withRuntime, but with the ledger and the history the function app would use
 * (CERTSCHED_LEDGER_TABLE_URI, then AzureWebJobsStorage): a renewal made here is recorded as the
 * app records its own.
 */
export function withRecordingRuntime<T>(
  io: Io,
  needs: readonly Need[],
  choice: Omit<AccountChoice, "scope">,
  work: (runtime: Runtime) => Promise<T>,
): Promise<T> {
  return withAccountRuntime(io, needs, {}, choice, work);
}
