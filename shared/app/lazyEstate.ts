import type { TableEstateOptions } from "../adapters/storage/tableEstate.js";
import type { EstateStore } from "../core/ports/estate.js";
import { LoadOnce } from "../lib/loadOnce.js";

/** The estate store, its module imported on first use: only estate discovery needs it. */
function storeOnFirstUse(kind: EstateStore["kind"], load: () => Promise<EstateStore>): EstateStore {
  const once = new LoadOnce(load);
  return {
    kind,
    last: async (...a) => (await once.get()).last(...a),
    save: async (...a) => (await once.get()).save(...a),
  };
}

/** The store in table storage (table certschedestate). */
export function tableEstateOnFirstUse(options: TableEstateOptions): EstateStore {
  return storeOnFirstUse("table", async () =>
    (await import("../adapters/storage/tableEstate.js")).createTableEstateStore(options),
  );
}

/** The store in process (no storage configured): one, made on first use. */
export function memoryEstateOnFirstUse(): EstateStore {
  return storeOnFirstUse("memory", async () =>
    (await import("../adapters/storage/memory/memoryEstate.js")).memoryEstateStore(),
  );
}
