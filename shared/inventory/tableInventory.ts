import type { TableLocation } from "../history/tableClient.js";
import { type Inventory, memoryInventory } from "./inventory.js";

/**
 * The inventory in Table storage (table `certschedinventory`), next to the ledger.
 * Placeholder until the table implementation lands: keeps rows in memory for this process.
 */
export function tableInventory(_where: TableLocation): Inventory {
  return memoryInventory();
}
