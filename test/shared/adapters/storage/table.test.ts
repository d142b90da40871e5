import { describe, expect, inject, it, vi } from "vitest";
import {
  failureOf,
  lazyTable,
  odataLiteral,
  readRow,
  removeOld,
  statusOf,
  unavailableError,
  writeRow,
} from "../../../../shared/adapters/storage/table.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { closedPort, uniqueTableName } from "../../../support/app.js";

const azurite = () => ({ connectionString: inject("azuriteTableConnectionString") });

/** The development account's connection string, every endpoint on a port nobody listens on. */
async function deadStorage(): Promise<string> {
  const port = await closedPort();
  return azurite().connectionString.replace(/127\.0\.0\.1:\d+/g, `127.0.0.1:${port}`);
}

const row = (rowKey: string, more: Record<string, unknown> = {}) => ({
  partitionKey: "p",
  rowKey,
  ...more,
});

/** A fresh table, created: the helper's calls on it, and the raw client for the assertions. */
async function freshTable() {
  const table = lazyTable(azurite(), uniqueTableName());
  await table.ensureTable();
  return { table, client: await table.client() };
}

describe("lazyTable", () => {
  it("makes the client once, on first use, and creates the table only when asked", async () => {
    const name = uniqueTableName();
    const table = lazyTable(azurite(), name);
    const client = await table.client();
    expect(await table.client()).toBe(client);
    expect(client.tableName).toBe(name);
    // No table yet: reading it is a 404, which readRow takes as no row.
    expect(await readRow(table, "p", "a")).toBeUndefined();
    await table.ensureTable();
    await table.ensureTable();
    await client.createEntity(row("a"));
    expect(await readRow(table, "p", "a")).toMatchObject({ rowKey: "a" });
  });

  it("takes a table that exists already as created (409)", async () => {
    const name = uniqueTableName();
    await lazyTable(azurite(), name).ensureTable();
    const again = lazyTable(azurite(), name);
    await expect(again.ensureTable()).resolves.toBeUndefined();
  });

  it("keeps no failure: a client that cannot be made is tried again on the next call", async () => {
    const table = lazyTable({ connectionString: "not a connection string" }, "t");
    const first: unknown = await table.client().catch((error: unknown) => error);
    const second: unknown = await table.client().catch((error: unknown) => error);
    expect(first).toBeInstanceOf(Error);
    expect(second).toBeInstanceOf(Error);
    expect(second).not.toBe(first);
  });

  it("keeps no failure to create the table either", async () => {
    const table = lazyTable({ connectionString: await deadStorage() }, uniqueTableName());
    const first: unknown = await table.ensureTable().catch((error: unknown) => error);
    const second: unknown = await table.ensureTable().catch((error: unknown) => error);
    expect(first).toBeInstanceOf(Error);
    expect(second).toBeInstanceOf(Error);
    expect(second).not.toBe(first);
  });

  it("gives every call a fresh timeout signal, and none without a timeout", () => {
    expect(lazyTable(azurite(), "t").limit()).toEqual({});
    const timed = lazyTable({ ...azurite(), timeoutMs: 5_000 }, "t");
    const one = timed.limit().abortSignal;
    const two = timed.limit().abortSignal;
    expect(one).toBeInstanceOf(AbortSignal);
    expect(two).not.toBe(one);
    expect(one?.aborted).toBe(false);
  });
});

describe("readRow", () => {
  it("reads a row with its ETag; none for a row that is not there", async () => {
    const { table, client } = await freshTable();
    const created = await client.createEntity(row("a", { state: "queued", note: "x" }));
    const read = await readRow(table, "p", "a");
    expect(read).toMatchObject({ partitionKey: "p", rowKey: "a", state: "queued", note: "x" });
    expect(read?.etag).toBe(created.etag);
    expect(await readRow(table, "p", "b")).toBeUndefined();
  });

  it("reads only the properties selected", async () => {
    const { table, client } = await freshTable();
    await client.createEntity(row("a", { state: "queued", note: "x" }));
    const read = await readRow(table, "p", "a", ["state"]);
    expect(read?.state).toBe("queued");
    expect(read?.note).toBeUndefined();
    expect(read?.etag).toEqual(expect.any(String));
  });

  it("throws any other failure as the SDK's", async () => {
    const table = lazyTable({ connectionString: await deadStorage() }, uniqueTableName());
    const error: unknown = await readRow(table, "p", "a").catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(CertschedError);
    expect(statusOf(error)).toBeUndefined();
    expect(failureOf(error)).toBe("ECONNREFUSED");
  });
});

describe("writeRow", () => {
  it("inserts, then replaces only under the ETag read", async () => {
    const { table } = await freshTable();
    const inserted = await writeRow(table, row("a", { n: 1 }));
    if ("conflict" in inserted) throw new Error("the insert met a conflict");
    const replaced = await writeRow(table, row("a", { n: 2 }), inserted.etag);
    if ("conflict" in replaced) throw new Error("the replace met a conflict");
    expect(replaced.etag).not.toBe(inserted.etag);
    expect(await readRow(table, "p", "a")).toMatchObject({ n: 2, etag: replaced.etag });
  });

  it("a row inserted by someone else first is a conflict (409), the row left as it was", async () => {
    const { table } = await freshTable();
    await writeRow(table, row("a", { n: 1 }));
    const second = await writeRow(table, row("a", { n: 2 }));
    expect(second).toEqual({ conflict: expect.anything() });
    if (!("conflict" in second)) throw new Error("no conflict");
    expect(statusOf(second.conflict)).toBe(409);
    expect(await readRow(table, "p", "a")).toMatchObject({ n: 1 });
  });

  it("a row changed since it was read is a conflict (412), the later write kept", async () => {
    const { table } = await freshTable();
    const first = await writeRow(table, row("a", { n: 1 }));
    if ("conflict" in first) throw new Error("the insert met a conflict");
    await writeRow(table, row("a", { n: 2 }), first.etag);
    const stale = await writeRow(table, row("a", { n: 3 }), first.etag);
    if (!("conflict" in stale)) throw new Error("no conflict");
    expect(statusOf(stale.conflict)).toBe(412);
    expect(await readRow(table, "p", "a")).toMatchObject({ n: 2 });
  });

  it("throws any other failure as the SDK's: a replace of a row gone (404), no table", async () => {
    const { table, client } = await freshTable();
    const first = await writeRow(table, row("a"));
    if ("conflict" in first) throw new Error("the insert met a conflict");
    await client.deleteEntity("p", "a");
    const gone: unknown = await writeRow(table, row("a"), first.etag).catch((e: unknown) => e);
    expect(statusOf(gone)).toBe(404);
    const noTable = lazyTable(azurite(), uniqueTableName());
    const missing: unknown = await writeRow(noTable, row("a")).catch((e: unknown) => e);
    expect(statusOf(missing)).toBe(404);
  });
});

describe("unavailableError", () => {
  const unavailable = unavailableError("RUNS_UNAVAILABLE", "run store", "certschedruns");

  it.each([
    ["a status", Object.assign(new Error("x"), { statusCode: 503 }), "503"],
    ["a code", Object.assign(new Error("x"), { code: "ECONNREFUSED" }), "ECONNREFUSED"],
    [
      "a timeout",
      Object.assign(new Error("x"), { name: "AbortError" }),
      "no answer within the timeout",
    ],
    ["nothing known", "boom", "unknown error"],
  ])("names the table, the action and the failure (%s), retriable", (_, cause, said) => {
    const error = unavailable("write", cause);
    expect(error).toBeInstanceOf(CertschedError);
    expect(error.code).toBe("RUNS_UNAVAILABLE");
    expect(error.message).toBe(`run store: cannot write table certschedruns (${said})`);
    expect(error.retriable).toBe(true);
    expect(error.cause).toBe(cause);
  });

  it("says what storage answered, never the request", async () => {
    const table = lazyTable({ connectionString: await deadStorage() }, "certschedruns");
    const cause: unknown = await table.ensureTable().catch((e: unknown) => e);
    const error = unavailable("open", cause);
    expect(error.message).toBe("run store: cannot open table certschedruns (ECONNREFUSED)");
    expect(error.message).not.toMatch(/AccountKey|SharedKey|http/);
  });
});

describe("removeOld", () => {
  /** Rows aged 0..count-1 days, in partitions a and b. */
  async function aged(count: number) {
    const fresh = await freshTable();
    for (let age = 0; age < count; age++) {
      await fresh.client.createEntity({
        partitionKey: age % 2 === 0 ? "a" : "b",
        rowKey: String(age).padStart(3, "0"),
        age,
      });
    }
    return fresh;
  }
  const keysOf = async (client: Awaited<ReturnType<typeof freshTable>>["client"]) => {
    const keys: string[] = [];
    for await (const r of client.listEntities()) keys.push(`${r.partitionKey}/${r.rowKey}`);
    return keys.sort();
  };

  it("deletes every row past retention, a page at a time, and counts them", async () => {
    const { table, client } = await aged(12);
    let inFlight = 0;
    let most = 0;
    const deleteEntity = client.deleteEntity.bind(client);
    vi.spyOn(client, "deleteEntity").mockImplementation(async (...args) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        return await deleteEntity(...args);
      } finally {
        inFlight -= 1;
      }
    });
    const removed = await removeOld(table, {
      filter: "age ge 3",
      select: ["PartitionKey", "RowKey"],
      concurrency: 4,
    });
    expect(removed).toBe(9);
    expect(most).toBe(4);
    expect(await keysOf(client)).toEqual(["a/000", "a/002", "b/001"]);
  });

  it("one at a time with a concurrency of 1; leaves what `keep` keeps", async () => {
    const { table, client } = await aged(6);
    const seen: Record<string, unknown>[] = [];
    const removed = await removeOld(table, {
      filter: "age ge 2",
      select: ["PartitionKey", "RowKey", "age"],
      keep: (r) => {
        seen.push(r);
        return r.partitionKey === "b";
      },
      concurrency: 1,
    });
    expect(removed).toBe(2);
    expect(seen.map((r) => r.age).sort()).toEqual([2, 3, 4, 5]);
    expect(await keysOf(client)).toEqual(["a/000", "b/001", "b/003", "b/005"]);
  });

  it("a row someone else removed first is not counted, and no failure", async () => {
    const { table, client } = await aged(4);
    const deleteEntity = client.deleteEntity.bind(client);
    vi.spyOn(client, "deleteEntity").mockImplementation(async (partitionKey, rowKey, options) => {
      if (rowKey === "002") await deleteEntity(partitionKey, rowKey);
      return deleteEntity(partitionKey, rowKey, options);
    });
    const removed = await removeOld(table, {
      filter: "age ge 1",
      select: ["PartitionKey", "RowKey"],
      concurrency: 2,
    });
    expect(removed).toBe(2);
    expect(await keysOf(client)).toEqual(["a/000"]);
  });

  it("a missing table has nothing to remove; an unreachable one throws the SDK's failure", async () => {
    const retention = { filter: "age ge 1", select: ["PartitionKey", "RowKey"], concurrency: 2 };
    expect(await removeOld(lazyTable(azurite(), uniqueTableName()), retention)).toBe(0);
    const dead = lazyTable({ connectionString: await deadStorage() }, uniqueTableName());
    const error: unknown = await removeOld(dead, retention).catch((e: unknown) => e);
    expect(failureOf(error)).toBe("ECONNREFUSED");
  });
});

describe("odataLiteral", () => {
  it("quotes a string for a filter, each quote doubled, so a name cannot end the literal", () => {
    expect(odataLiteral("contoso")).toBe("'contoso'");
    expect(odataLiteral("o'brien")).toBe("'o''brien'");
    expect(odataLiteral("' or PartitionKey ne '")).toBe("''' or PartitionKey ne '''");
    expect(odataLiteral("")).toBe("''");
  });
});
