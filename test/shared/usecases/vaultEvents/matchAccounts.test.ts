import { describe, expect, it } from "vitest";
import { KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import { parseWatchVault, type WatchVault } from "../../../../shared/core/inventory/watchVaults.js";
import { type Inventory, memoryInventory } from "../../../../shared/core/ports/inventory.js";
import type { VaultEvent } from "../../../../shared/core/vaultEvents/vaultEvent.js";
import {
  type AccountsPorts,
  deliveryWatchers,
} from "../../../../shared/usecases/vaultEvents/matchAccounts.js";

/** Which accounts watch an event's vault: inventories read once per delivery, CERTSCHED_WATCH too. */

const SUB = "00000000-1111-2222-3333-444444444444";

const event = (vaultName: string, certificateName = "www"): VaultEvent => ({
  id: `e-${vaultName}`,
  kind: "new-version",
  schema: "eventgrid",
  vaultName,
  certificateName,
  version: "abc123",
  subscriptionId: SUB,
  resourceGroup: "rg",
});

function counted(inventory: Inventory): { inventory: Inventory; reads: () => number } {
  let reads = 0;
  return {
    inventory: {
      ...inventory,
      list: async () => {
        reads += 1;
        return inventory.list();
      },
    },
    reads: () => reads,
  };
}

function services(
  accounts: Record<string, { inventory: Inventory; watchVaults?: WatchVault[] }>,
): AccountsPorts {
  return {
    accounts: Object.keys(accounts),
    forAccount: (id) => {
      const a = accounts[id ?? ""];
      if (!a) throw new Error(`no account ${id}`);
      return { inventory: a.inventory, settings: { watchVaults: a.watchVaults ?? [] } } as never;
    },
  };
}

async function keyVaultInventory(vault: string): Promise<Inventory> {
  const inventory = memoryInventory();
  await inventory.upsert([
    {
      certificateName: "www",
      rootDomain: "www.a.test",
      target: KEY_VAULT,
      keyVaultName: vault,
      source: "created",
      seenAt: new Date(),
    },
  ]);
  return inventory;
}

describe("deliveryWatchers", () => {
  it("finds every account that watches the vault, by its inventory or CERTSCHED_WATCH, reading each inventory once", async () => {
    const a = counted(await keyVaultInventory("kv-a"));
    const b = counted(memoryInventory());
    const watch = parseWatchVault("kv-a/www=www.b.test");
    if (typeof watch === "string") throw new Error(watch);
    const watchersOf = deliveryWatchers(services({ a, b: { ...b, watchVaults: [watch] } }));
    const found = await watchersOf(event("kv-a"));
    expect(found.kind).toBe("watched");
    if (found.kind !== "watched") return;
    expect(found.watchers.map((x) => [x.account, x.certificate?.names])).toEqual([
      ["a", ["www"]],
      ["b", [expect.stringMatching(/^watch:www\.b\.test/)]],
    ]);
    await watchersOf(event("kv-a"));
    await watchersOf(event("kv-other"));
    expect([a.reads(), b.reads()]).toEqual([1, 1]);
  });

  it("a vault no account watches is not watched, with the reason", async () => {
    const watchersOf = deliveryWatchers(
      services({ a: { inventory: await keyVaultInventory("kv-a") } }),
    );
    expect(await watchersOf(event("kv-forged"))).toEqual({
      kind: "not-watched",
      detail: expect.stringContaining("kv-forged"),
    });
  });

  it("an inventory that cannot be read: unreadable unless another account watches the vault", async () => {
    const broken: Inventory = {
      ...memoryInventory(),
      list: async () => {
        throw new Error("table down\u001b[2J");
      },
    };
    const alone = deliveryWatchers(services({ a: { inventory: broken } }));
    const unread = await alone(event("kv-a"));
    expect(unread).toEqual({
      kind: "unreadable",
      detail: expect.stringContaining('the inventory of account "a" could not be read: table down'),
    });
    expect(JSON.stringify(unread)).not.toContain("\u001b");
    const both = deliveryWatchers(
      services({ a: { inventory: broken }, b: { inventory: await keyVaultInventory("kv-a") } }),
    );
    expect(await both(event("kv-a"))).toMatchObject({
      kind: "watched",
      watchers: [{ account: "b" }],
    });
  });
});
