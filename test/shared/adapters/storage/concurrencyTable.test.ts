import { TableClient } from "@azure/data-tables";
import { describe, expect, inject, it } from "vitest";
import {
  CONCURRENCY_TABLE,
  concurrencyTable,
} from "../../../../shared/adapters/storage/concurrencyTable.js";
import { adaptiveLimit } from "../../../../shared/core/concurrency/adaptiveLimit.js";
import { DEFAULT_RULE } from "../../../../shared/core/concurrency/aimd.js";
import { closedPort, uniqueTableName } from "../../../support/app.js";

const connectionString = () => inject("azuriteTableConnectionString");
const AT = new Date("2026-11-26T07:00:00.000Z");

function store(tableName: string, account = "contoso") {
  return concurrencyTable({
    connectionString: connectionString(),
    tableName,
    account,
    now: () => AT,
  });
}

describe("concurrencyTable on Azurite", () => {
  it("is named certschedconcurrency by default", () => {
    expect(CONCURRENCY_TABLE).toBe("certschedconcurrency");
  });

  it("reads nothing before the first write, even without the table", async () => {
    expect(await store(uniqueTableName("conc")).read()).toBeUndefined();
  });

  it("creates the row, reads it back with its version and time, one row per account", async () => {
    const tableName = uniqueTableName("conc");
    const contoso = store(tableName, "contoso");
    const fabrikam = store(tableName, "fabrikam");
    expect(
      await contoso.write(
        { limit: 6, epoch: 2, healthy: 3, baselineMs: 12.5, ceiling: 12 },
        undefined,
      ),
    ).toBe("written");
    const row = await contoso.read();
    expect(row?.state).toEqual({ limit: 6, epoch: 2, healthy: 0, baselineMs: 12.5, ceiling: 12 });
    expect(row?.updatedAt).toEqual(AT);
    expect(row?.etag).toMatch(/\S/);
    expect(await fabrikam.read()).toBeUndefined();
    const client = TableClient.fromConnectionString(connectionString(), tableName, {
      allowInsecureConnection: true,
    });
    const entity = await client.getEntity("account", "contoso");
    expect(entity).toMatchObject({ limit: 6, epoch: 2, ceiling: 12, updatedAt: AT.toISOString() });
  });

  it("writes only at the version read: a second writer with the same version gets a conflict", async () => {
    const tableName = uniqueTableName("conc");
    const a = store(tableName);
    await a.write({ limit: 8, epoch: 0, healthy: 0 }, undefined);
    const read = await a.read();
    expect(await a.write({ limit: 4, epoch: 1, healthy: 0 }, read?.etag)).toBe("written");
    expect(await a.write({ limit: 9, epoch: 0, healthy: 0 }, read?.etag)).toBe("conflict");
    // A create when the row exists is a conflict too, never an overwrite.
    expect(await a.write({ limit: 9, epoch: 0, healthy: 0 }, undefined)).toBe("conflict");
    expect((await a.read())?.state).toMatchObject({ limit: 4, epoch: 1 });
  });

  it("reads a row it did not write (edited by hand) as forgotten, and the next write replaces it", async () => {
    const tableName = uniqueTableName("conc");
    const a = store(tableName);
    await a.write({ limit: 8, epoch: 0, healthy: 0 }, undefined);
    const client = TableClient.fromConnectionString(connectionString(), tableName, {
      allowInsecureConnection: true,
    });
    await client.updateEntity(
      { partitionKey: "account", rowKey: "contoso", limit: "lots", epoch: -1, updatedAt: "soon" },
      "Replace",
    );
    const row = await a.read();
    expect(row?.updatedAt.getTime()).toBe(0);
    expect(await a.write({ limit: 3, epoch: 1, healthy: 0 }, row?.etag)).toBe("written");
    expect((await a.read())?.state).toMatchObject({ limit: 3, epoch: 1 });
  });

  it("shares the limit between two processes' adaptive limits through the table", async () => {
    const tableName = uniqueTableName("conc");
    const rule = { ...DEFAULT_RULE, start: 16, cap: 32 };
    const now = () => AT.getTime();
    const one = adaptiveLimit({ rule, store: store(tableName), now });
    const two = adaptiveLimit({ rule, store: store(tableName), now });
    await Promise.all([one.refresh(), two.refresh()]);
    one.observe({ kind: "throttled", epoch: one.epoch() });
    two.observe({ kind: "throttled", epoch: two.epoch() });
    await Promise.all([one.settled(), two.settled()]);
    // Both saw the same overload: the account's limit halves once, not twice.
    expect((await store(tableName).read())?.state).toMatchObject({ limit: 8, epoch: 1 });
    await two.refresh();
    expect([one.current(), two.current()]).toEqual([8, 8]);
    expect([...one.takeWarnings(), ...two.takeWarnings()]).toEqual([]);
  });

  it("names the table and the failure when storage cannot be reached; the limit goes on locally", async () => {
    const port = await closedPort();
    const dead = concurrencyTable({
      connectionString: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`,
      tableName: "certschedconcurrency",
      account: "contoso",
      timeoutMs: 2_000,
      now: () => AT,
    });
    await expect(dead.read()).rejects.toThrow(
      /^concurrency limit: cannot read table certschedconcurrency \(/,
    );
    const limit = adaptiveLimit({
      rule: { ...DEFAULT_RULE, start: 8, cap: 8 },
      store: dead,
      now: () => AT.getTime(),
    });
    await limit.refresh();
    limit.observe({ kind: "throttled", epoch: limit.epoch() });
    await limit.settled();
    expect(limit.current()).toBe(4);
    expect(limit.takeWarnings()).toEqual([
      expect.stringMatching(/cannot read the shared limit, going on with this process's own/),
    ]);
  }, 30_000);
});
