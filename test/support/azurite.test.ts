import { TableClient } from "@azure/data-tables";
import { describe, expect, inject, it } from "vitest";
import { startAzurite } from "./azurite.js";

describe("Azurite from globalSetup", () => {
  it("accepts a table, an upsert and a read", async () => {
    const conn = inject("azuriteTableConnectionString");
    const client = TableClient.fromConnectionString(conn, "probe", {
      allowInsecureConnection: true,
    });
    await client.createTable();
    await client.upsertEntity({ partitionKey: "p", rowKey: "r", note: "hello", count: 3 });

    const entity = await client.getEntity<{ note: string; count: number }>("p", "r");

    expect(entity.note).toBe("hello");
    expect(entity.count).toBe(3);
  });
});

describe("startAzurite", () => {
  it("starts a private instance and stops it for good", async () => {
    const azurite = await startAzurite();
    const client = TableClient.fromConnectionString(azurite.connectionString, "down", {
      allowInsecureConnection: true,
      retryOptions: { maxRetries: 0 },
    });
    await client.createTable();

    await azurite.stop();
    await azurite.stop();

    await expect(client.listEntities().next()).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });
});
