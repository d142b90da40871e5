import { TableClient } from "@azure/data-tables";
import { describe, expect, inject, it } from "vitest";
import { eventPartition } from "../../../../../shared/adapters/storage/rows/historyRow.js";
import {
  INVENTORY_PARTITION,
  inventoryRowKey,
} from "../../../../../shared/adapters/storage/rows/inventoryRow.js";
import {
  eventServedFrom,
  eventServedText,
  receiptFrom,
  receiptJson,
  servedFactsJson,
} from "../../../../../shared/adapters/storage/rows/servedJson.js";
import { tableHistory } from "../../../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../../../shared/adapters/storage/tableInventory.js";
import type { CertificateEvent } from "../../../../../shared/core/history/events.js";
import type { VerificationRecord } from "../../../../../shared/core/ports/inventory.js";
import { MAX_FACT, type ServedFacts } from "../../../../../shared/core/verification/served.js";
import { uniqueTableName } from "../../../../support/app.js";

const T = new Date("2026-11-26T10:00:00.000Z");
const BEFORE: ServedFacts = {
  thumbprint: "AB12CD34".repeat(8),
  serial: "0A1B2C3D4E5F60718293",
  issuer: "CN=R11, O=Let's Encrypt, C=US",
  notBefore: new Date("2026-09-02T00:00:00.000Z"),
  notAfter: new Date("2026-12-01T00:00:00.000Z"),
};
const AFTER: ServedFacts = {
  thumbprint: "EF34AB56".repeat(8),
  serial: "04",
  issuer: "CN=R10, O=Let's Encrypt, C=US",
  notBefore: new Date("2026-11-26T09:00:00.000Z"),
  notAfter: new Date("2027-03-01T00:00:00.000Z"),
  version: "4f1c2a",
};

const landed = (more: Partial<CertificateEvent> = {}): CertificateEvent => ({
  at: T,
  certificateName: "shop",
  event: "landed",
  trigger: "timer",
  runId: "run-1",
  reason: "ok",
  detail: "the served certificate changed",
  before: BEFORE,
  after: AFTER,
  ...more,
});

function tables() {
  const connectionString = inject("azuriteTableConnectionString");
  const historyName = uniqueTableName("rh");
  const inventoryName = uniqueTableName("ri");
  const client = (name: string) =>
    TableClient.fromConnectionString(connectionString, name, { allowInsecureConnection: true });
  return {
    history: tableHistory({ connectionString, tableName: historyName }),
    inventory: tableInventory({ connectionString, tableName: inventoryName, timeoutMs: 10_000 }),
    historyClient: client(historyName),
    inventoryClient: client(inventoryName),
  };
}

describe("servedJson: the receipt through Table storage (Azurite)", () => {
  it("a landed event keeps before and after whole (fingerprints, dates, version) in its `served` property", async () => {
    const { history } = tables();
    await history.append([
      landed(),
      landed({
        event: "verified",
        before: undefined,
        after: undefined,
        at: new Date(T.getTime() - 1000),
      }),
    ]);

    const { items, invalid } = await history.events({
      certificateName: "shop",
      since: new Date(0),
    });

    expect(invalid).toEqual([]);
    expect(items[0]).toMatchObject({ event: "landed", before: BEFORE, after: AFTER });
    expect(items[1]?.event).toBe("verified");
    expect(items[1]).not.toHaveProperty("before");
    expect(items[1]).not.toHaveProperty("after");
  });

  it("a `served` property that is not right reads as absent; the event stands", async () => {
    const { history, historyClient } = tables();
    await history.append([]);
    const bad = [
      "{not json",
      JSON.stringify({ before: { thumbprint: "not hex!" } }),
      "[]",
      JSON.stringify({ after: { thumbprint: "AB", notAfter: "soon" } }),
    ];
    for (const [i, served] of bad.entries()) {
      await historyClient.createEntity({
        partitionKey: eventPartition("shop"),
        rowKey: `000000000000${i}-x`,
        kind: "event",
        at: T.toISOString(),
        certificateName: "shop",
        event: "landed",
        trigger: "timer",
        runId: "r",
        served,
      });
    }

    const { items, invalid } = await history.events({
      certificateName: "shop",
      since: new Date(0),
    });

    expect(invalid).toEqual([]);
    expect(items).toHaveLength(4);
    for (const e of items) {
      expect(e.event).toBe("landed");
      expect(e.before).toBeUndefined();
      expect(e.after).toBeUndefined();
    }
  });

  it("the inventory row keeps serial, notBefore, version and the receipt; a bad receipt reads as absent, the row stays valid", async () => {
    const { inventory, inventoryClient } = tables();
    await inventory.upsert([{ certificateName: "shop", source: "due-list", seenAt: T }]);
    const verification: VerificationRecord = {
      at: T,
      status: "ok",
      source: "keyvault",
      domain: "kv/shop",
      detail: "fine",
      thumbprint: AFTER.thumbprint,
      serial: "04",
      notBefore: AFTER.notBefore,
      version: "4f1c2a",
      servedNotAfter: AFTER.notAfter,
      receipt: {
        acceptedAt: new Date("2026-11-26T09:30:00.000Z"),
        before: BEFORE,
        after: AFTER,
        landedAt: T,
      },
    };
    await inventory.recordVerification("shop", verification);

    const kept = (await inventory.get("shop"))?.lastVerification;

    expect(kept).toEqual(verification);
    // Corrupt only the receipt inside the stored verification.
    const row = await inventoryClient.getEntity<Record<string, unknown>>(
      INVENTORY_PARTITION,
      inventoryRowKey("shop"),
    );
    const stored = JSON.parse(String(row.verification)) as Record<string, unknown>;
    await inventoryClient.updateEntity(
      {
        partitionKey: INVENTORY_PARTITION,
        rowKey: inventoryRowKey("shop"),
        verification: JSON.stringify({
          ...stored,
          receipt: { acceptedAt: "yesterday", before: 7 },
        }),
      },
      "Merge",
    );
    const read = await inventory.list();
    expect(read.invalid).toEqual([]);
    const { receipt, ...rest } = verification;
    expect(read.items[0]?.lastVerification).toEqual(rest);
  });
});

describe("servedJson: the Certificate Transparency hashes through Table storage (Azurite)", () => {
  const KEY = "0f".repeat(32);
  const TBS = "a1".repeat(32);
  const hashed = (f: ServedFacts, n: number): ServedFacts => ({
    ...f,
    pubkeySha256: `${n}`.repeat(64),
    tbsSha256: `${n + 1}`.repeat(64),
  });
  const verification: VerificationRecord = {
    at: T,
    status: "ok",
    source: "tls",
    domain: "shop.contoso.com",
    detail: "fine",
    thumbprint: AFTER.thumbprint,
    servedNotAfter: AFTER.notAfter,
    pubkeySha256: KEY,
    tbsSha256: TBS,
    receipt: {
      acceptedAt: new Date("2026-11-26T09:30:00.000Z"),
      before: hashed(BEFORE, 1),
      after: hashed(AFTER, 3),
      landedAt: T,
    },
  };

  it("the verification, its receipt and a landed event keep both hashes whole", async () => {
    const { inventory, history } = tables();
    await inventory.upsert([{ certificateName: "shop", source: "due-list", seenAt: T }]);
    await inventory.recordVerification("shop", verification);
    await history.append([landed({ before: hashed(BEFORE, 5), after: hashed(AFTER, 7) })]);

    const kept = (await inventory.list()).items[0]?.lastVerification;
    const events = await history.events({ certificateName: "shop", since: new Date(0) });

    expect(kept).toEqual(verification);
    expect(events.items[0]).toMatchObject({ before: hashed(BEFORE, 5), after: hashed(AFTER, 7) });
  });

  it("rows written before the hashes were kept read as they did, without them", async () => {
    const { inventory, inventoryClient, history, historyClient } = tables();
    await inventory.upsert([{ certificateName: "shop", source: "due-list", seenAt: T }]);
    await history.append([]);
    // As the previous version wrote them: no pubkeySha256 or tbsSha256 anywhere.
    const old = {
      at: T.toISOString(),
      status: "ok",
      source: "tls",
      domain: "shop.contoso.com",
      thumbprint: AFTER.thumbprint,
      receipt: { acceptedAt: T.toISOString(), before: servedFactsJson(BEFORE) },
      detail: "fine",
    };
    await inventoryClient.updateEntity(
      {
        partitionKey: INVENTORY_PARTITION,
        rowKey: inventoryRowKey("shop"),
        verification: JSON.stringify(old),
      },
      "Merge",
    );
    await historyClient.createEntity({
      partitionKey: eventPartition("shop"),
      rowKey: "0000000000000-old",
      kind: "event",
      at: T.toISOString(),
      certificateName: "shop",
      event: "landed",
      trigger: "timer",
      runId: "r",
      served: JSON.stringify({ before: servedFactsJson(BEFORE), after: servedFactsJson(AFTER) }),
    });

    const read = await inventory.list();
    const events = await history.events({ certificateName: "shop", since: new Date(0) });

    expect(read.invalid).toEqual([]);
    expect(read.items[0]?.lastVerification).toEqual({
      at: T,
      status: "ok",
      source: "tls",
      domain: "shop.contoso.com",
      thumbprint: AFTER.thumbprint,
      receipt: { acceptedAt: T, before: BEFORE },
      detail: "fine",
    });
    expect(events.invalid).toEqual([]);
    expect(events.items[0]).toMatchObject({ before: BEFORE, after: AFTER });
    expect(events.items[0]?.before).not.toHaveProperty("tbsSha256");
  });

  it("a stored hash that is not 64 lower-case hex reads as absent; the row and receipt stand", async () => {
    const { inventory, inventoryClient } = tables();
    await inventory.upsert([{ certificateName: "shop", source: "due-list", seenAt: T }]);
    await inventory.recordVerification("shop", verification);
    const row = await inventoryClient.getEntity<Record<string, unknown>>(
      INVENTORY_PARTITION,
      inventoryRowKey("shop"),
    );
    const stored = JSON.parse(String(row.verification)) as Record<string, Record<string, unknown>>;
    const receipt = stored.receipt as Record<string, Record<string, unknown>>;
    await inventoryClient.updateEntity(
      {
        partitionKey: INVENTORY_PARTITION,
        rowKey: inventoryRowKey("shop"),
        verification: JSON.stringify({
          ...stored,
          pubkeySha256: KEY.toUpperCase(),
          tbsSha256: 42,
          receipt: { ...receipt, before: { ...receipt.before, tbsSha256: `${TBS}00` } },
        }),
      },
      "Merge",
    );

    const read = await inventory.list();

    expect(read.invalid).toEqual([]);
    const { pubkeySha256, tbsSha256, ...rest } = verification;
    const { tbsSha256: _dropped, ...before } = hashed(BEFORE, 1);
    expect(read.items[0]?.lastVerification).toEqual({
      ...rest,
      receipt: { ...verification.receipt, before },
    });
  });

  it("only a hash is written: a value that is not one is left out", () => {
    const json = servedFactsJson({ thumbprint: "AB", pubkeySha256: "xyz", tbsSha256: TBS });
    expect(json).toEqual({ thumbprint: "AB", tbsSha256: TBS });
  });
});

describe("servedJson: bounds", () => {
  it("a 30,000-character issuer is kept to MAX_FACT characters; a fingerprint longer than 128 is cut", () => {
    const json = servedFactsJson({ thumbprint: "A".repeat(200), issuer: "x".repeat(30_000) });
    expect(json.issuer).toHaveLength(MAX_FACT);
    expect(json.issuer?.endsWith("…")).toBe(true);
    expect(json.thumbprint).toHaveLength(128);
    expect(servedFactsJson({ thumbprint: "AB", issuer: "x".repeat(MAX_FACT) }).issuer).toBe(
      "x".repeat(MAX_FACT),
    );
  });

  it("a stored issuer one over MAX_FACT is not right: the receipt reads as absent", () => {
    const json = receiptJson({ acceptedAt: T, before: BEFORE });
    expect(receiptFrom(json)).toEqual({ acceptedAt: T, before: BEFORE });
    expect(
      receiptFrom({ ...json, before: { thumbprint: "AB", issuer: "x".repeat(MAX_FACT + 1) } }),
    ).toBeUndefined();
    expect(
      receiptFrom({ ...json, before: { thumbprint: "AB", issuer: "x".repeat(MAX_FACT) } }),
    ).toBeDefined();
    expect(receiptFrom(undefined)).toBeUndefined();
  });

  it("an event with neither before nor after has no `served` property", () => {
    expect(eventServedText({})).toBeUndefined();
    expect(eventServedFrom(eventServedText({ before: BEFORE }))).toEqual({ before: BEFORE });
    expect(eventServedFrom(42)).toEqual({});
  });
});
