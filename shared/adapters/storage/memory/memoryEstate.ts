import type { KeptEstate } from "../../../core/estate/kept.js";
import { keptOf } from "../../../core/estate/kept.js";
import type { EstateStore } from "../../../core/ports/estate.js";

/** Each account's last estate in process (no storage configured: the sandbox, tests). */
export function memoryEstateStore(): EstateStore {
  const kept = new Map<string, KeptEstate>();
  return {
    kind: "memory",
    last: async (account) => kept.get(account),
    save: async (report) => {
      kept.set(report.account, keptOf(report));
    },
  };
}
