import type { Read } from "../ports/history.js";
import type { Inventory } from "../ports/inventory.js";
import type { LedgerRecord } from "../ports/ledger.js";

/** Where the status view reads from. */
export interface StatusSources {
  readonly inventory: Inventory;
  /** Every ledger row, read once (shared/adapters/storage/ledgerRows.ts for the table ledger). */
  ledgerRows(): Promise<Read<LedgerRecord>>;
  /**
   * One ledger row by the service's record id (a point read); undefined when there is none.
   * Without it, one certificate is found by listing the ledger.
   */
  ledgerRow?(id: number): Promise<LedgerRecord | undefined>;
}

/** Name order by UTF-16 code units: stable, locale-free, and what continuation tokens compare. */
export const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
