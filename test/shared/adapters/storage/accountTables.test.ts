import { describe, expect, it } from "vitest";
import { accountTables } from "../../../../shared/adapters/storage/accountTables.js";
import { HISTORY_TABLE } from "../../../../shared/adapters/storage/tableHistory.js";
import { INVENTORY_TABLE } from "../../../../shared/adapters/storage/tableInventory.js";
import { LEDGER_TABLE } from "../../../../shared/adapters/storage/tableLedger.js";

/** Azure Table storage's rule for a table name. */
const TABLE_NAME = /^[A-Za-z][A-Za-z0-9]{2,62}$/;

describe("accountTables", () => {
  it("keeps the single-account tables for the account 'default'", () => {
    expect(accountTables("default")).toEqual({
      ledger: LEDGER_TABLE,
      history: HISTORY_TABLE,
      inventory: INVENTORY_TABLE,
    });
  });

  it("gives every other account its own valid table names, apart even where '-' is all that differs", () => {
    const names = [
      "a",
      "ab",
      "a-b",
      "-ab",
      "ab-",
      "0",
      "z".repeat(40),
      `${"z".repeat(39)}-`,
      "default-1",
    ];
    const seen = new Set<string>();
    for (const name of names) {
      const tables = accountTables(name);
      for (const table of Object.values(tables)) {
        expect(table).toMatch(TABLE_NAME);
        // Table names are case-insensitive: compare them folded.
        expect(seen.has(table.toLowerCase())).toBe(false);
        seen.add(table.toLowerCase());
      }
      expect(tables.ledger.startsWith(LEDGER_TABLE)).toBe(true);
      expect(tables.history.startsWith(HISTORY_TABLE)).toBe(true);
      expect(tables.inventory.startsWith(INVENTORY_TABLE)).toBe(true);
    }
    expect(accountTables("contoso-eu")).toEqual(accountTables("contoso-eu"));
  });
});
