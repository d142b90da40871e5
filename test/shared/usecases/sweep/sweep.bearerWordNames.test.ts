import { describe, expect, inject, it } from "vitest";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { startSimulator } from "../../../../sim/index.js";
import { collectingLogger, runtimeFor, uniqueTableName } from "../../../support/app.js";

/**
 * The redaction guards against tokens quoted back; "Bearer <word>" in a certificate's name is
 * not one. Names like "Bearer Token Service" were taken for a quoted Authorization header at the
 * entry (refused: "holds a secret certsched sent", never renewed) and on every read from storage
 * (the inventory row no longer matched its key, the history lost its events). Only what is a
 * secret (held by this process, or shaped like a token) is cut from a record.
 */

const connectionString = () => inject("azuriteTableConnectionString");

describe("a certificate whose name says 'Bearer' and a word", () => {
  it("is renewed, stored and read back under its own name, in every table", async () => {
    const names = ["Bearer Token Service", "api bearer auth-gateway"];
    const sim = await startSimulator({
      certificates: names.map((certificateName, i) => ({
        certificateName,
        expiryDate: new Date(Date.now() + (3 + i) * DAY_MS),
      })),
    });
    const stores = { connectionString: connectionString(), timeoutMs: 10_000 };
    const inventory = tableInventory({ ...stores, tableName: uniqueTableName("inv") });
    const history = tableHistory({ ...stores, tableName: uniqueTableName("hist") });
    const ledger = tableLedger({ ...stores, tableName: uniqueTableName("led") });
    const runtime = runtimeFor(sim, {}, { inventory, history, ledger });
    try {
      const summary = await sweep(runtime, collectingLogger().log, { trigger: "cli" });

      expect(summary.results.map((r) => [r.certificateName, r.outcome])).toEqual(
        names.map((n) => [n, "renewal-scheduled"]),
      );
      expect(summary.problems).toEqual([]);
      expect(sim.requestsFor("publicRenew")).toHaveLength(2);
      for (const name of names) {
        expect((await inventory.get(name))?.certificateName, name).toBe(name);
        const events = await history.events({ certificateName: name, since: new Date(0) });
        expect(
          events.items.map((e) => e.certificateName),
          name,
        ).toEqual([name]);
        const id = sim.certificates().find((c) => c.certificateName === name)?.id ?? 0;
        expect((await ledger.read(id))?.record.certificateName, name).toBe(name);
      }
    } finally {
      await runtime.close();
      await sim.close();
    }
  });
});
