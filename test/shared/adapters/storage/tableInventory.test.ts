import { createServer, type Server, type Socket } from "node:net";
import { TableClient } from "@azure/data-tables";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  INVENTORY_PARTITION,
  inventoryRowKey,
} from "../../../../shared/adapters/storage/rows/inventoryRow.js";
import {
  INVENTORY_TABLE,
  tableInventory,
} from "../../../../shared/adapters/storage/tableInventory.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { createAccountPorts } from "../../../../shared/app/services.js";
import {
  type Inventory,
  type InventoryUpdate,
  memoryInventory,
  type VerificationRecord,
} from "../../../../shared/core/ports/inventory.js";
import { CertschedError, ValidationError } from "../../../../shared/lib/errors.js";
import { uniqueTableName } from "../../../support/app.js";
import { startAzurite } from "../../../support/azurite.js";

const T = new Date("2026-11-23T03:00:00.000Z");
const at = (ms: number) => new Date(T.getTime() + ms);

const update = (name: string, more: Partial<InventoryUpdate> = {}): InventoryUpdate => ({
  certificateName: name,
  source: "due-list",
  seenAt: T,
  ...more,
});

const verification = (more: Partial<VerificationRecord> = {}): VerificationRecord => ({
  at: at(60_000),
  status: "ok",
  source: "tls",
  domain: "www.contoso.com",
  servedNotAfter: new Date("2027-02-01T00:00:00.000Z"),
  daysLeft: 69,
  issuer: "CN=Test CA",
  thumbprint: "AB".repeat(32),
  detail: "trusted, covers www.contoso.com, 69 days left",
  ...more,
});

function table(tableName = uniqueTableName("inv")): { inventory: Inventory; client: TableClient } {
  const connectionString = inject("azuriteTableConnectionString");
  return {
    inventory: tableInventory({ connectionString, tableName, timeoutMs: 10_000 }),
    client: TableClient.fromConnectionString(connectionString, tableName, {
      allowInsecureConnection: true,
    }),
  };
}

// The same rules for both stores: the memory one stands in for the table in callers' tests.
describe.each([
  ["table", () => table().inventory],
  ["memory", () => memoryInventory()],
])("%s inventory", (_kind, make) => {
  it("merges: a field the update does not know keeps its value; firstSeen the first, lastSeen the latest", async () => {
    const inventory = make();
    await inventory.upsert([
      update("b-cert", { id: 7, rootDomain: "b.contoso.com", target: "Cloud App Service" }),
      update("a-cert", { keyVaultName: "kv1", keyVaultCertificateName: "a-in-vault" }),
    ]);
    await inventory.upsert([
      update("b-cert", {
        source: "renewed",
        serviceExpiry: new Date("2027-01-01T00:00:00.000Z"),
        seenAt: at(5_000),
      }),
    ]);
    // An older sighting (a slow writer) does not move lastSeen back.
    await inventory.upsert([update("b-cert", { seenAt: at(1_000), sanNames: ["x.contoso.com"] })]);

    const { items, invalid } = await inventory.list();
    expect(invalid).toEqual([]);
    expect(items.map((r) => r.certificateName)).toEqual(["a-cert", "b-cert"]);
    expect(items[1]).toEqual({
      certificateName: "b-cert",
      id: 7,
      rootDomain: "b.contoso.com",
      target: "Cloud App Service",
      serviceExpiry: new Date("2027-01-01T00:00:00.000Z"),
      sanNames: ["x.contoso.com"],
      source: "due-list",
      firstSeen: T,
      lastSeen: at(5_000),
    });
    expect(await inventory.get("a-cert")).toMatchObject({
      keyVaultName: "kv1",
      keyVaultCertificateName: "a-in-vault",
    });
    expect(await inventory.get("nobody")).toBeUndefined();
  });

  it("keeps the latest verification, dates and all, and drops one for a name it does not hold", async () => {
    const inventory = make();
    await inventory.upsert([update("c-cert", { rootDomain: "c.contoso.com" })]);
    const first = verification({
      status: "unreachable",
      servedNotAfter: undefined,
      daysLeft: undefined,
      issuer: undefined,
      thumbprint: undefined,
      detail: "cannot connect to c.contoso.com:443 (ECONNREFUSED)",
      unreachableSince: at(0),
    });
    await inventory.recordVerification("c-cert", first);
    expect((await inventory.get("c-cert"))?.lastVerification).toEqual(first);

    const critical = verification({ status: "expiring", critical: true, daysLeft: 3 });
    await inventory.recordVerification("c-cert", critical);
    await inventory.recordVerification("not-in-inventory", critical);
    const { items } = await inventory.list();
    expect(items).toHaveLength(1);
    expect(items[0]?.lastVerification).toEqual(critical);
    // A later upsert (the next due list) keeps the verification.
    await inventory.upsert([update("c-cert", { seenAt: at(9_000) })]);
    expect((await inventory.get("c-cert"))?.lastVerification).toEqual(critical);
  });

  it("folds several updates of one certificate in one call, in order", async () => {
    const inventory = make();
    await inventory.upsert([
      update("d-cert", { rootDomain: "old.contoso.com" }),
      update("d-cert", { rootDomain: "new.contoso.com", id: 4, seenAt: at(1) }),
    ]);
    expect(await inventory.get("d-cert")).toMatchObject({
      rootDomain: "new.contoso.com",
      id: 4,
      lastSeen: at(1),
    });
  });
});

describe("table inventory", () => {
  it("keeps names that are not allowed in table keys, and quotes", async () => {
    const { inventory } = table();
    const names = ["a/b", "c#d?e", "back\\slash", "it's", "tab\there", "%41"];
    await inventory.upsert(names.map((name) => update(name)));
    const { items, invalid } = await inventory.list();
    expect(invalid).toEqual([]);
    expect(items.map((r) => r.certificateName).sort()).toEqual([...names].sort());
    for (const name of names) expect((await inventory.get(name))?.certificateName).toBe(name);
  });

  it("keeps names longer than a key holds (512 escaped characters): at it, one past, 2,000, 150 CJK", async () => {
    const { inventory, client } = table();
    const names = [
      "a".repeat(512),
      "a".repeat(513),
      `long-${"n".repeat(1_995)}`,
      "証明書".repeat(50),
      // Two long names alike but for their last character: two rows.
      `${"b".repeat(600)}1`,
      `${"b".repeat(600)}2`,
    ];
    await inventory.upsert(names.map((name) => update(name, { rootDomain: "long.contoso.com" })));
    for (const name of names) await inventory.recordVerification(name, verification());

    const { items, invalid } = await inventory.list();
    expect(invalid).toEqual([]);
    expect(items.map((r) => r.certificateName).sort()).toEqual([...names].sort());
    for (const item of items) expect(item.lastVerification?.status).toBe("ok");
    for (const name of names) expect((await inventory.get(name))?.certificateName).toBe(name);
    // The name that fits keeps its key; a row of a long name holds the name whole.
    const rows: Record<string, unknown>[] = [];
    for await (const row of client.listEntities()) rows.push(row);
    expect(rows.map((r) => r.rowKey)).toContain("a".repeat(512));
    expect(rows.map((r) => r.certificateName).sort()).toEqual([...names].sort());
  });

  it("refuses a long name's row that holds another name (the key is a hash)", async () => {
    const { inventory, client } = table();
    const name = "c".repeat(700);
    await inventory.upsert([update(name)]);
    const key = inventoryRowKey(name);
    await client.updateEntity(
      { partitionKey: INVENTORY_PARTITION, rowKey: key, certificateName: "c".repeat(699) },
      "Merge",
    );
    await expect(inventory.get(name)).rejects.toThrow(/certificateName: must be the certificate/);
    const { items, invalid } = await inventory.list();
    expect(items).toEqual([]);
    expect(invalid[0]).toContain(`inventory row ${key}`);
  });

  it("reads a missing table as an empty inventory, and creates it on the first write", async () => {
    const { inventory, client } = table();
    expect(await inventory.list()).toEqual({ items: [], invalid: [] });
    expect(await inventory.get("x")).toBeUndefined();
    await inventory.recordVerification("x", verification());
    await inventory.upsert([update("x")]);
    const rows = [];
    for await (const row of client.listEntities()) rows.push(row);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ partitionKey: INVENTORY_PARTITION, rowKey: "x" });
  });

  it("names an invalid row in `invalid`, never guesses at it, and upsert leaves it alone", async () => {
    const { inventory, client } = table();
    await inventory.upsert([update("good"), update("bad")]);
    // Someone edits the row in Storage Explorer: a source no version of certsched writes.
    await client.updateEntity(
      { partitionKey: INVENTORY_PARTITION, rowKey: "bad", source: "guess", lastSeen: "yesterday" },
      "Merge",
    );
    const { items, invalid } = await inventory.list();
    expect(items.map((r) => r.certificateName)).toEqual(["good"]);
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toContain("inventory row bad");
    expect(invalid[0]).toContain("source");
    expect(invalid[0]).toContain("lastSeen");

    const written = inventory.upsert([
      update("bad", { rootDomain: "bad.contoso.com" }),
      update("good", { rootDomain: "good.contoso.com" }),
    ]);
    // Named: the certificate left as stored, and the row's fields that are not right.
    await expect(written).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
      certificateNames: ["bad"],
      message: expect.stringMatching(
        /^inventory: left bad as stored: Invalid inventory row bad .*source/,
      ),
    });
    // The good row was written all the same; the bad one is as the person left it.
    expect((await inventory.get("good"))?.rootDomain).toBe("good.contoso.com");
    const raw = await client.getEntity<Record<string, unknown>>(INVENTORY_PARTITION, "bad");
    expect(raw.source).toBe("guess");
    expect(raw.rootDomain).toBeUndefined();
    await expect(inventory.get("bad")).rejects.toBeInstanceOf(ValidationError);
  });

  it("refuses a row filed under another name's key", async () => {
    const { inventory, client } = table();
    await inventory.upsert([update("one")]);
    const {
      etag: _etag,
      timestamp: _t,
      ...row
    } = await client.getEntity<Record<string, unknown>>(INVENTORY_PARTITION, "one");
    await client.createEntity({ ...row, partitionKey: INVENTORY_PARTITION, rowKey: "two" });
    const { items, invalid } = await inventory.list();
    expect(items.map((r) => r.certificateName)).toEqual(["one"]);
    expect(invalid[0]).toMatch(
      /inventory row two .*certificateName:? must be the certificate the row key stands for/,
    );
  });

  it("concurrent writers of one row lose nothing (conditional writes, merged again)", async () => {
    const tableName = uniqueTableName("inv");
    const a = table(tableName).inventory;
    const b = table(tableName).inventory;
    await a.upsert([update("shared")]);
    await Promise.all([
      ...Array.from({ length: 4 }, (_, i) =>
        a.upsert([update("shared", i === 0 ? { rootDomain: "r.contoso.com" } : {})]),
      ),
      ...Array.from({ length: 4 }, (_, i) =>
        b.upsert([update("shared", i === 0 ? { keyVaultName: "kv9" } : {})]),
      ),
    ]);
    expect(await a.get("shared")).toMatchObject({
      rootDomain: "r.contoso.com",
      keyVaultName: "kv9",
    });
  });

  it("is what a second runtime on the same storage sees (AzureWebJobsStorage, the default table)", async () => {
    // An Azurite of its own: the default table is read whole by verification runs elsewhere.
    const azurite = await startAzurite();
    const env = {
      CERTSCHED_BASE_URL: "https://service.invalid",
      CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
      AzureWebJobsStorage: azurite.connectionString,
    };
    const first = createAccountPorts(loadSettings(env));
    const second = createAccountPorts(loadSettings(env));
    const name = `runtime-${Date.now()}`;
    try {
      expect(first.inventory.kind).toBe("table");
      await first.inventory.upsert([update(name, { rootDomain: "shared.contoso.com" })]);
      await first.inventory.recordVerification(name, verification());
      const seen = await second.inventory.get(name);
      expect(seen?.rootDomain).toBe("shared.contoso.com");
      expect(seen?.lastVerification?.status).toBe("ok");
      // Stored in the table the docs name, next to the ledger.
      const client = TableClient.fromConnectionString(env.AzureWebJobsStorage, INVENTORY_TABLE, {
        allowInsecureConnection: true,
      });
      const row = await client.getEntity(INVENTORY_PARTITION, inventoryRowKey(name));
      expect(row.rootDomain).toBe("shared.contoso.com");
    } finally {
      await Promise.all([first.close(), second.close()]);
      await azurite.stop();
    }
  });

  describe("storage that never answers", () => {
    let server: Server;
    let port = 0;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      // Accepts connections and says nothing: only the timeout ends a call.
      server = createServer((socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      port = typeof address === "object" && address ? address.port : 0;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("throws INVENTORY_UNAVAILABLE (retriable) once the timeout is up, for reads and writes", async () => {
      const connectionString = inject("azuriteTableConnectionString").replaceAll(
        /127\.0\.0\.1:\d+/g,
        `127.0.0.1:${port}`,
      );
      const inventory = tableInventory({ connectionString, timeoutMs: 300 });
      for (const call of [
        () => inventory.list(),
        () => inventory.get("x"),
        () => inventory.upsert([update("x")]),
        () => inventory.recordVerification("x", verification()),
      ]) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(CertschedError);
        expect((error as CertschedError).code).toBe("INVENTORY_UNAVAILABLE");
        expect((error as CertschedError).retriable).toBe(true);
        expect((error as Error).message).toMatch(
          /inventory: cannot (read|write) table certschedinventory/,
        );
        expect((error as Error).message).not.toContain("AccountKey");
      }
    });
  });
});
