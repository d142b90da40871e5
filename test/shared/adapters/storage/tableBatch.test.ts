import { TableClient } from "@azure/data-tables";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  BATCH_ACTIONS,
  batchesOf,
  type RowAction,
  submitInBatches,
} from "../../../../shared/adapters/storage/tableBatch.js";
import { uniqueTableName } from "../../../support/app.js";
import { type CountingProxy, countingProxy } from "../../../support/countingProxy.js";

const row = (partitionKey: string, i: number, more: Record<string, unknown> = {}): RowAction => [
  "upsert",
  { partitionKey, rowKey: `r${String(i).padStart(4, "0")}`, n: i, ...more },
];

describe("batchesOf", () => {
  it("cuts each partition at 100 actions, never mixing partitions", () => {
    const actions = [
      ...Array.from({ length: 150 }, (_, i) => row("a", i)),
      ...Array.from({ length: 100 }, (_, i) => row("b", i)),
      row("a", 150),
    ];
    const sizes = batchesOf(actions).map((b) => [b[0]?.[1].partitionKey, b.length]);
    expect(sizes).toEqual([
      ["a", BATCH_ACTIONS],
      ["a", 51],
      ["b", BATCH_ACTIONS],
    ]);
  });

  it("cuts before a batch's entities would pass 3 MiB of JSON", () => {
    const big = "x".repeat(400 * 1024);
    const batches = batchesOf(Array.from({ length: 10 }, (_, i) => row("a", i, { big })));
    // 7 rows of 400 KiB fit in 3 MiB (2.8 MiB), the 8th would not.
    expect(batches.map((b) => b.length)).toEqual([7, 3]);
  });
});

describe("submitInBatches over Azurite", () => {
  let proxy: CountingProxy;
  let direct: TableClient;
  let client: TableClient;
  const tableName = uniqueTableName("batch");

  beforeAll(async () => {
    const connectionString = inject("azuriteTableConnectionString");
    proxy = await countingProxy(connectionString);
    const options = { allowInsecureConnection: true };
    direct = TableClient.fromConnectionString(connectionString, tableName, options);
    client = TableClient.fromConnectionString(proxy.connectionString, tableName, options);
    await direct.createTable();
  });
  afterAll(async () => {
    await proxy.close();
  });

  it("lands 250 rows across 2 partitions with one request per 100 rows or fewer", async () => {
    const actions = [
      ...Array.from({ length: 130 }, (_, i) => row("p1", i)),
      ...Array.from({ length: 120 }, (_, i) => row("p2", i)),
    ];
    proxy.requests.length = 0;
    const failed = await submitInBatches(client, actions, { limit: () => ({}) });
    expect(failed).toEqual([]);
    // 130 -> 100 + 30, 120 -> 100 + 20: four transactions, one POST $batch each.
    expect(proxy.requests).toHaveLength(4);
    expect(proxy.requests.every((r) => r.endsWith("/$batch") && r.startsWith("POST"))).toBe(true);
    for (const [partition, count] of [
      ["p1", 130],
      ["p2", 120],
    ] as const) {
      const rows = [];
      for await (const e of direct.listEntities({
        queryOptions: { filter: `PartitionKey eq '${partition}'` },
      }))
        rows.push(e);
      expect(rows).toHaveLength(count);
    }
  });

  it("names the rows of a transaction that did not land, tried once more, the others landed", async () => {
    // A "create" of a row that exists fails its whole transaction with 409: not tried again.
    await direct.upsertEntity({ partitionKey: "q", rowKey: "r0005", n: -1 });
    const actions: RowAction[] = [
      ...Array.from({ length: 100 }, (_, i): RowAction => ["create", row("q", i)[1]]),
      ...Array.from({ length: 10 }, (_, i) => row("q2", i)),
    ];
    proxy.requests.length = 0;
    const failed = await submitInBatches(client, actions, { limit: () => ({}) });
    expect(failed).toHaveLength(1);
    expect(failed[0]?.actions).toHaveLength(100);
    expect(failed[0]?.error).toMatchObject({ statusCode: 409 });
    expect(proxy.requests).toHaveLength(2);
    // All or nothing: the stored row is as it was, and none of the 99 others was created.
    expect((await direct.getEntity("q", "r0005")).n).toBe(-1);
    await expect(direct.getEntity("q", "r0006")).rejects.toMatchObject({ statusCode: 404 });
    expect((await direct.getEntity("q2", "r0009")).n).toBe(9);
  });

  it("tries a transaction refused for another cause once more", async () => {
    let calls = 0;
    const flaky = {
      submitTransaction: async (actions: RowAction[]) => {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error("busy"), { statusCode: 503 });
        return client.submitTransaction(actions);
      },
    } as unknown as TableClient;
    const failed = await submitInBatches(flaky, [row("flaky", 1)], { limit: () => ({}) });
    expect(failed).toEqual([]);
    expect(calls).toBe(2);
    expect((await direct.getEntity("flaky", "r0001")).n).toBe(1);
  });
});
