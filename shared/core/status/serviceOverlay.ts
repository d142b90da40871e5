import type { CertificateRecord } from "../certificate/records.js";
import { fromServiceRecord } from "../inventory/fromRecords.js";
import {
  type Inventory,
  type InventoryRecord,
  type InventorySource,
  mergeRecord,
} from "../ports/inventory.js";
import { byName } from "./statusSources.js";

/**
 * The service's fresh word (the due list, Get Certificate) laid over the stored inventory, in
 * memory: the status view then shows the expiry as the service says it now, and storing it
 * stays the job of whoever owns the inventory's writes (reading changes nothing stored).
 */

/** `inventory` as read, with `records` merged over it (and added when it lacks them). */
export function withServiceRecords(
  inventory: Inventory,
  records: readonly CertificateRecord[],
  seenAt: Date,
  source: InventorySource,
): Inventory {
  const fresh = new Map(
    records.map((r) => [r.certificateName, fromServiceRecord(r, source, seenAt)]),
  );
  const merged = (stored: InventoryRecord | undefined, name: string) => {
    const update = fresh.get(name);
    return update ? mergeRecord(stored, update) : stored;
  };
  return {
    ...inventory,
    async list() {
      const read = await inventory.list();
      const byKey = new Map(read.items.map((r) => [r.certificateName, r]));
      const names = [...new Set([...byKey.keys(), ...fresh.keys()])].sort(byName);
      return {
        items: names.flatMap((name) => merged(byKey.get(name), name) ?? []),
        invalid: read.invalid,
      };
    },
    async get(name) {
      return merged(await inventory.get(name), name);
    },
  };
}
