import { TableClient } from "@azure/data-tables";
import { describe, expect, inject, it } from "vitest";
import {
  INVENTORY_PARTITION,
  inventoryRowKey,
} from "../../../../shared/adapters/storage/rows/inventoryRow.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import {
  type Inventory,
  memoryInventory,
  type PreflightRecord,
} from "../../../../shared/core/ports/inventory.js";
import { ValidationError } from "../../../../shared/lib/errors.js";
import { uniqueTableName } from "../../../support/app.js";

const T = new Date("2026-11-23T03:00:00.000Z");

const preflight = (more: Partial<PreflightRecord> = {}): PreflightRecord => ({
  at: T,
  status: "will-fail",
  rootDomain: "shop.contoso.com",
  checks: [
    {
      check: "caa",
      status: "fail",
      reason: "caa-forbids",
      detail: "CAA at contoso.com allows only digicert.com",
    },
    { check: "app-binding", status: "pass", detail: "bound to shop-app" },
    { check: "access", status: "pass", detail: "ARM answered" },
  ],
  ...more,
});

function table(): { inventory: Inventory; client: TableClient } {
  const connectionString = inject("azuriteTableConnectionString");
  const tableName = uniqueTableName("pf");
  return {
    inventory: tableInventory({ connectionString, tableName, timeoutMs: 10_000 }),
    client: TableClient.fromConnectionString(connectionString, tableName, {
      allowInsecureConnection: true,
    }),
  };
}

describe.each([
  ["table", () => table().inventory],
  ["memory", () => memoryInventory()],
])("%s inventory keeps what preflight needs", (_kind, make) => {
  it("keeps the create request's app and the record's DNS fields, and the last preflight", async () => {
    const inventory = make();
    await inventory.upsert([
      {
        certificateName: "shop",
        source: "created",
        seenAt: T,
        rootDomain: "shop.contoso.com",
        challengeType: "http",
        cloudSubscriptionId: "sub-1",
        dnsZoneResourceGroup: "rg-dns",
        appServiceResourceGroup: "rg-web",
        appServiceName: "shop-app",
        appServiceSlot: "",
      },
    ]);
    await inventory.recordPreflight("shop", preflight());
    // Never an insert: a preflight of a name the inventory does not hold is not kept.
    await inventory.recordPreflight("not-there", preflight());
    const [record, ...others] = (await inventory.list()).items;
    expect(others).toEqual([]);
    expect(record).toMatchObject({
      challengeType: "http",
      cloudSubscriptionId: "sub-1",
      dnsZoneResourceGroup: "rg-dns",
      appServiceResourceGroup: "rg-web",
      appServiceName: "shop-app",
      appServiceSlot: "",
      lastPreflight: preflight(),
    });
    // A later sighting from the due list (no app) keeps the app and the preflight.
    await inventory.upsert([{ certificateName: "shop", source: "due-list", seenAt: T, id: 4 }]);
    expect(await inventory.get("shop")).toMatchObject({
      id: 4,
      appServiceName: "shop-app",
      lastPreflight: preflight(),
    });
    await inventory.recordPreflight("shop", preflight({ status: "ready", checks: [] }));
    expect((await inventory.get("shop"))?.lastPreflight).toEqual(
      preflight({ status: "ready", checks: [] }),
    );
  });
});

describe("a stored preflight read back", () => {
  it("is validated: a reason certsched does not know makes the row invalid, named", async () => {
    const { inventory, client } = table();
    await inventory.upsert([{ certificateName: "shop", source: "created", seenAt: T }]);
    await client.updateEntity(
      {
        partitionKey: INVENTORY_PARTITION,
        rowKey: inventoryRowKey("shop"),
        preflight: JSON.stringify({
          at: T.toISOString(),
          status: "will-fail",
          rootDomain: null,
          checks: [{ check: "caa", status: "fail", reason: "made-up", detail: "" }],
        }),
      },
      "Merge",
    );
    const read = await inventory.list();
    expect(read.items).toEqual([]);
    expect(read.invalid).toEqual([
      expect.stringMatching(/preflight.*must be JSON of the documented shape/),
    ]);
    await expect(inventory.get("shop")).rejects.toBeInstanceOf(ValidationError);
  });

  it("keeps a detail of 299 characters whole and never stores a longer one", async () => {
    const { inventory, client } = table();
    await inventory.upsert([{ certificateName: "shop", source: "created", seenAt: T }]);
    const long = "d".repeat(400);
    await inventory.recordPreflight(
      "shop",
      preflight({
        checks: [
          { check: "caa", status: "pass", detail: "e".repeat(299) },
          { check: "access", status: "pass", detail: long },
        ],
      }),
    );
    const row = await client.getEntity<{ preflight: string }>(
      INVENTORY_PARTITION,
      inventoryRowKey("shop"),
    );
    const stored = JSON.parse(row.preflight) as { checks: { detail: string }[] };
    expect(stored.checks[0]?.detail).toBe("e".repeat(299));
    expect(stored.checks[1]?.detail).toHaveLength(299);
    expect((await inventory.get("shop"))?.lastPreflight?.checks[1]?.detail.endsWith("…")).toBe(
      true,
    );
  });
});
