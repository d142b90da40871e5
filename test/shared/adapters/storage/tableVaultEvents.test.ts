import { TableClient } from "@azure/data-tables";
import { describe, expect, inject, it } from "vitest";
import { memoryVaultEventStore } from "../../../../shared/adapters/storage/memory/memoryVaultEvents.js";
import {
  toVaultEventRow,
  vaultEventPartition,
} from "../../../../shared/adapters/storage/rows/vaultEventRow.js";
import {
  createTableVaultEventStore,
  VAULT_EVENTS_TABLE,
} from "../../../../shared/adapters/storage/tableVaultEvents.js";
import type {
  VaultEventRecord,
  VaultEventStore,
} from "../../../../shared/core/ports/vaultEvents.js";
import { eventKey, type VaultEventKind } from "../../../../shared/core/vaultEvents/vaultEvent.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { uniqueTableName } from "../../../support/app.js";

const T = new Date("2026-12-02T10:00:00.000Z");
const at = (ms: number) => new Date(T.getTime() + ms);
const MINUTE = 60_000;
const LEASE = 10 * MINUTE;

type Claimed = Omit<VaultEventRecord, "doneAt" | "outcome">;

function record(more: Partial<Claimed> = {}, kind: VaultEventKind = "new-version"): Claimed {
  const base = {
    kind,
    vaultName: "contoso-kv",
    certificateName: "www-Contoso",
    version: "0123456789abcdef0123456789abcdef",
    eventId: "5b2e1c1e-2a8e-4e2b-9f54-0d3c4c1f2a01",
    claimedAt: T,
    ...more,
  };
  return { key: eventKey(base), ...base };
}

const connectionString = () => inject("azuriteTableConnectionString");
const onTable = (tableName = uniqueTableName("ve")) =>
  createTableVaultEventStore({ connectionString: connectionString(), tableName, timeoutMs: 5_000 });

/** The rules every VaultEventStore keeps: `make` gives a fresh, empty one. */
describe.each([
  ["table", () => onTable()],
  ["memory", () => memoryVaultEventStore()],
] as const)("the %s vault events store", (_kind, make: () => VaultEventStore) => {
  it("the first claim is the caller's; while its lease runs, another is held", async () => {
    const store = make();
    expect(await store.claim("default", record(), LEASE)).toBe("claimed");
    const again = record({ eventId: "another-delivery", claimedAt: at(LEASE - 1) });
    expect(await store.claim("default", again, LEASE)).toBe("held");
  });

  it("once the lease ran out (the delivery died) it can be claimed again, exactly at its end too", async () => {
    const store = make();
    expect(await store.claim("default", record(), LEASE)).toBe("claimed");
    expect(await store.claim("default", record({ claimedAt: at(LEASE) }), LEASE)).toBe("claimed");
    expect(await store.claim("default", record({ claimedAt: at(LEASE + 1) }), LEASE)).toBe("held");
  });

  it("done: every later claim says done, whatever the lease; the outcome is kept escaped", async () => {
    const store = make();
    const one = record();
    await store.claim("default", one, LEASE);
    await store.complete("default", one.key, "consumers serve it\u001b[31m", at(MINUTE));
    expect(await store.claim("default", record({ claimedAt: at(2 * LEASE) }), LEASE)).toBe("done");
    const listed = await store.list("default", T);
    expect(listed).toEqual({
      items: [{ ...one, doneAt: at(MINUTE), outcome: "consumers serve it\\u{1b}[31m" }],
      invalid: [],
    });
  });

  it("released: claimable again at once", async () => {
    const store = make();
    const one = record();
    await store.claim("default", one, LEASE);
    await store.release("default", one.key);
    expect(await store.claim("default", record({ claimedAt: at(1) }), LEASE)).toBe("claimed");
  });

  it("each account, version and kind is its own claim", async () => {
    const store = make();
    expect(await store.claim("default", record(), LEASE)).toBe("claimed");
    expect(await store.claim("fabrikam", record(), LEASE)).toBe("claimed");
    expect(await store.claim("default", record({ version: "ffff" }), LEASE)).toBe("claimed");
    expect(await store.claim("default", record({}, "near-expiry"), LEASE)).toBe("claimed");
    expect(await store.claim("default", record(), LEASE)).toBe("held");
  });

  it("lists one account's records claimed since a moment, newest first", async () => {
    const store = make();
    await store.claim("default", record({ version: "a1", claimedAt: at(-MINUTE) }), LEASE);
    await store.claim("default", record({ version: "a2", claimedAt: at(MINUTE) }), LEASE);
    await store.claim("default", record({ version: "a3", claimedAt: at(2 * MINUTE) }), LEASE);
    await store.claim("fabrikam", record({ version: "b1", claimedAt: at(MINUTE) }), LEASE);
    const listed = await store.list("default", T);
    expect(listed.items.map((r) => r.version)).toEqual(["a3", "a2"]);
    expect(listed.invalid).toEqual([]);
  });

  it("a record whose key is not its event's is refused, never stored", async () => {
    const store = make();
    await expect(store.claim("default", { ...record(), key: "other" }, LEASE)).rejects.toThrow(
      RangeError,
    );
    expect((await store.list("default", at(-LEASE))).items).toEqual([]);
  });
});

describe("the table vault events store", () => {
  it("is kind table, in table certschedvaultevents by default", () => {
    expect(VAULT_EVENTS_TABLE).toBe("certschedvaultevents");
    expect(
      createTableVaultEventStore({ connectionString: "UseDevelopmentStorage=true" }).kind,
    ).toBe("table");
  });

  it("two stores racing for one event (two instances): exactly one claims it", async () => {
    const tableName = uniqueTableName("ve");
    const stores = Array.from({ length: 6 }, () => onTable(tableName));
    const outcomes = await Promise.all(
      stores.map((s, i) => s.claim("default", record({ eventId: `delivery-${i}` }), LEASE)),
    );
    expect(outcomes.filter((o) => o === "claimed")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "held")).toHaveLength(5);
  });

  it("two stores racing for a claim whose lease ran out: exactly one takes it again", async () => {
    const tableName = uniqueTableName("ve");
    await onTable(tableName).claim("default", record(), LEASE);
    const late = record({ claimedAt: at(2 * LEASE) });
    const outcomes = await Promise.all(
      [onTable(tableName), onTable(tableName)].map((s) => s.claim("default", late, LEASE)),
    );
    expect(outcomes.sort()).toEqual(["claimed", "held"]);
  });

  it("a missing table reads as empty; complete and release of no record change nothing", async () => {
    const store = onTable();
    expect(await store.list("default", T)).toEqual({ items: [], invalid: [] });
    await store.complete("default", "contoso-kv/www/v/expired", "done", T);
    await store.release("default", "contoso-kv/www/v/expired");
    expect(await store.list("default", at(-LEASE))).toEqual({ items: [], invalid: [] });
  });

  it("a row that fails validation: an invalid line of list naming the field; a claim on it is refused, not guessed", async () => {
    const tableName = uniqueTableName("ve");
    const store = onTable(tableName);
    const good = record({ version: "good" });
    await store.claim("default", good, LEASE);
    const bad = record({ version: "bad" });
    const client = TableClient.fromConnectionString(connectionString(), tableName, {
      allowInsecureConnection: true,
    });
    await client.createEntity({ ...toVaultEventRow("default", bad, at(LEASE)), kind: "renamed" });
    const listed = await store.list("default", at(-LEASE));
    expect(listed.items).toEqual([good]);
    expect(listed.invalid).toHaveLength(1);
    expect(listed.invalid[0]).toContain("kind");
    const refused = await store.claim("default", bad, LEASE).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CertschedError);
    expect((refused as CertschedError).retriable).toBe(false);
  });

  it("a row filed under another account's partition is not read as that account's", async () => {
    const tableName = uniqueTableName("ve");
    const client = TableClient.fromConnectionString(connectionString(), tableName, {
      allowInsecureConnection: true,
    });
    await client.createTable();
    const row = toVaultEventRow("fabrikam", record(), at(LEASE));
    await client.createEntity({ ...row, partitionKey: vaultEventPartition("default") });
    const listed = await onTable(tableName).list("default", at(-LEASE));
    expect(listed.items).toEqual([]);
    expect(listed.invalid[0]).toContain("must be the account the partition key stands for");
  });

  it("unreachable storage: STORAGE_UNAVAILABLE naming the table, retriable", async () => {
    const store = createTableVaultEventStore({
      connectionString:
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;TableEndpoint=http://127.0.0.1:1/devstoreaccount1;",
      timeoutMs: 2_000,
    });
    const failed = await store.claim("default", record(), LEASE).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: "STORAGE_UNAVAILABLE", retriable: true });
    expect((failed as Error).message).toContain("table certschedvaultevents");
  });
});
