import { TableClient } from "@azure/data-tables";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BATCH_FROM } from "../../../../shared/adapters/storage/inventoryBatch.js";
import {
  INVENTORY_PARTITION,
  inventoryRowKey,
} from "../../../../shared/adapters/storage/rows/inventoryRow.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import type { InventoryUpdate } from "../../../../shared/core/ports/inventory.js";
import { UnstoredError } from "../../../../shared/lib/errors.js";
import { uniqueTableName } from "../../../support/app.js";
import { type CountingProxy, countingProxy } from "../../../support/countingProxy.js";

const T = new Date("2026-11-23T03:00:00.000Z");
const name = (i: number) => `cert-${String(i).padStart(4, "0")}`;
const update = (i: number, seenAt = T, more: Partial<InventoryUpdate> = {}): InventoryUpdate => ({
  certificateName: name(i),
  id: i,
  target: "appservice",
  source: "due-list",
  seenAt,
  ...more,
});

describe("tableInventory.upsert of many rows", () => {
  let proxy: CountingProxy;
  let interfere: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    proxy = await countingProxy(inject("azuriteTableConnectionString"), async (request) => {
      if (request.endsWith("/$batch")) await interfere?.();
      return undefined;
    });
  });
  afterAll(async () => {
    await proxy.close();
  });
  const fresh = () => {
    const tableName = uniqueTableName("invb");
    return {
      tableName,
      inventory: tableInventory({ connectionString: proxy.connectionString, tableName }),
      direct: TableClient.fromConnectionString(inject("azuriteTableConnectionString"), tableName, {
        allowInsecureConnection: true,
      }),
    };
  };

  it("writes 250 rows in transactions of 100 after one read of the partition, and merges into stored ones", async () => {
    const { inventory } = fresh();
    await inventory.upsert([update(0, T, { rootDomain: "contoso.com" })]);
    await inventory.recordVerification(name(0), {
      at: T,
      status: "ok",
      source: "tls",
      domain: "www.contoso.com",
      detail: "trusted",
    });
    proxy.requests.length = 0;
    const later = new Date(T.getTime() + 60_000);
    await inventory.upsert(Array.from({ length: 250 }, (_, i) => update(i, later)));
    const batches = proxy.requests.filter((r) => r.endsWith("/$batch"));
    // 250 rows: 3 transactions; the partition read once (one page under 1,000 rows).
    expect(batches).toHaveLength(3);
    expect(proxy.requests).toHaveLength(4);
    const { items } = await inventory.list();
    expect(items).toHaveLength(250);
    const first = items[0];
    // What the update did not know is kept: the root domain, the verification, firstSeen.
    expect(first?.rootDomain).toBe("contoso.com");
    expect(first?.lastVerification?.status).toBe("ok");
    expect(first?.firstSeen).toEqual(T);
    expect(first?.lastSeen).toEqual(later);
  });

  it("writes the rows of a transaction another writer got in the way of row by row, reading again", async () => {
    const { inventory, direct } = fresh();
    await inventory.upsert(Array.from({ length: BATCH_FROM }, (_, i) => update(i)));
    // Another writer changes row 3 after this upsert read the partition, before its transaction.
    interfere = async () => {
      interfere = undefined;
      await direct.updateEntity(
        {
          partitionKey: INVENTORY_PARTITION,
          rowKey: inventoryRowKey(name(3)),
          rootDomain: "theirs.com",
        },
        "Merge",
      );
    };
    const later = new Date(T.getTime() + 60_000);
    await inventory.upsert(Array.from({ length: BATCH_FROM }, (_, i) => update(i, later)));
    expect(interfere).toBeUndefined();
    const { items } = await inventory.list();
    expect(items).toHaveLength(BATCH_FROM);
    expect(items.every((r) => r.lastSeen.getTime() === later.getTime())).toBe(true);
    // Their change stands: the transaction was refused (412) and the row merged again.
    expect(items[3]?.rootDomain).toBe("theirs.com");
  });

  it("never overwrites a stored row that fails validation, names it, and stores the others", async () => {
    const { inventory, direct } = fresh();
    await inventory.upsert(Array.from({ length: BATCH_FROM }, (_, i) => update(i)));
    await direct.updateEntity(
      { partitionKey: INVENTORY_PARTITION, rowKey: inventoryRowKey(name(7)), source: "nonsense" },
      "Merge",
    );
    const later = new Date(T.getTime() + 60_000);
    const error = await inventory
      .upsert(Array.from({ length: BATCH_FROM + 5 }, (_, i) => update(i, later)))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnstoredError);
    expect((error as UnstoredError).certificateNames).toEqual([name(7)]);
    expect((await direct.getEntity(INVENTORY_PARTITION, inventoryRowKey(name(7)))).source).toBe(
      "nonsense",
    );
    const { items } = await inventory.list();
    expect(items).toHaveLength(BATCH_FROM + 4);
    expect(items.every((r) => r.lastSeen.getTime() === later.getTime())).toBe(true);
  });
});
