import { TableClient } from "@azure/data-tables";
import { beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import type { Ledger, LedgerEntry, LedgerRecord } from "../../../../shared/core/ports/ledger.js";
import { CertschedError, ValidationError } from "../../../../shared/lib/errors.js";
import { closedPort, uniqueTableName } from "../../../support/app.js";

const connectionString = () => inject("azuriteTableConnectionString");

const RECORD: LedgerRecord = {
  id: 4711,
  certificateName: "www-contoso-com",
  expiryAtRequest: new Date("2026-03-06T10:00:00.123Z"),
  firstRequestedAt: new Date("2026-03-01T03:00:00.000Z"),
  lastRequestedAt: new Date("2026-03-01T05:30:00.000Z"),
  outcome: "renewal-scheduled",
  attempts: 2,
  detail: "Certificate www-contoso-com is scheduled for renewal.",
};

let tableName: string;
let ledger: Ledger;

beforeEach(async () => {
  tableName = uniqueTableName("ledger");
  ledger = tableLedger({ connectionString: connectionString(), tableName });
  await ledger.open();
});

function entryOf(result: LedgerEntry | "conflict"): LedgerEntry {
  if (result === "conflict") throw new Error("unexpected conflict");
  return result;
}

describe("tableLedger on Azurite", () => {
  it("is a table ledger, and opening twice is harmless", async () => {
    expect(ledger.kind).toBe("table");
    await expect(ledger.open()).resolves.toBeUndefined();
  });

  it("reads nothing for a certificate it never saw", async () => {
    expect(await ledger.read(RECORD.id)).toBeUndefined();
  });

  it("reads back what it wrote: dates, attempts, outcome, detail", async () => {
    const written = entryOf(await ledger.write(RECORD, undefined));

    const read = await ledger.read(RECORD.id);

    expect(read?.record).toEqual(RECORD);
    expect(read?.etag).toBe(written.etag);
    expect(read?.etag).not.toBe("");
  });

  it("keeps missing dates and detail missing", async () => {
    const failed: LedgerRecord = {
      ...RECORD,
      firstRequestedAt: undefined,
      lastRequestedAt: undefined,
      outcome: "failed",
      attempts: 1,
      detail: undefined,
    };
    await ledger.write(failed, undefined);

    expect((await ledger.read(RECORD.id))?.record).toEqual(failed);
  });

  it("reads back a claim: its time and the decision's reason", async () => {
    const claim: LedgerRecord = {
      ...RECORD,
      outcome: "claimed",
      claimedAt: new Date("2026-03-02T03:00:00.250Z"),
      reason: "GraceElapsed",
      detail: undefined,
    };
    await ledger.write(claim, undefined);

    expect((await ledger.read(RECORD.id))?.record).toEqual(claim);
  });

  it("reports a row it cannot trust by field, and never as an unavailable ledger", async () => {
    const client = TableClient.fromConnectionString(connectionString(), tableName, {
      allowInsecureConnection: true,
    });
    await client.createEntity({
      partitionKey: "certificate",
      rowKey: String(RECORD.id),
      certificateName: RECORD.certificateName,
      expiryAtRequest: "not a date",
      outcome: "scheduled",
      attempts: 1,
    });

    const error = await ledger.read(RECORD.id).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.name)).toEqual([
      "expiryAtRequest",
      "outcome",
    ]);
  });

  it("insert-if-absent: a second insert of the same certificate is a conflict", async () => {
    entryOf(await ledger.write(RECORD, undefined));

    const second = await ledger.write({ ...RECORD, attempts: 9 }, undefined);

    expect(second).toBe("conflict");
    expect((await ledger.read(RECORD.id))?.record.attempts).toBe(2);
  });

  it("of two inserts racing for one certificate, exactly one wins", async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => ledger.write({ ...RECORD, attempts: i + 1 }, undefined)),
    );

    expect(results.filter((r) => r === "conflict")).toHaveLength(4);
  });

  it("replace with the current etag succeeds and moves the etag on", async () => {
    const first = entryOf(await ledger.write(RECORD, undefined));
    const next: LedgerRecord = {
      ...RECORD,
      lastRequestedAt: new Date("2026-03-02T03:00:00.000Z"),
      outcome: "stuck",
      attempts: 3,
    };

    const second = entryOf(await ledger.write(next, first.etag));

    expect(second.etag).not.toBe(first.etag);
    expect((await ledger.read(RECORD.id))?.record).toEqual(next);
  });

  it("replace with a stale etag is a conflict and changes nothing", async () => {
    const first = entryOf(await ledger.write(RECORD, undefined));
    entryOf(await ledger.write({ ...RECORD, attempts: 3 }, first.etag));

    const stale = await ledger.write({ ...RECORD, attempts: 99 }, first.etag);

    expect(stale).toBe("conflict");
    expect((await ledger.read(RECORD.id))?.record.attempts).toBe(3);
  });

  it("shortens a long detail to 1000 characters", async () => {
    await ledger.write({ ...RECORD, detail: "x".repeat(5000) }, undefined);

    expect((await ledger.read(RECORD.id))?.record.detail).toHaveLength(1000);
  });

  it("keeps certificates apart by id", async () => {
    await ledger.write(RECORD, undefined);
    await ledger.write({ ...RECORD, id: 4712, certificateName: "api-contoso-com" }, undefined);

    expect((await ledger.read(4712))?.record.certificateName).toBe("api-contoso-com");
    expect((await ledger.read(RECORD.id))?.record.certificateName).toBe("www-contoso-com");
  });

  it("stores one row per certificate in the named table", async () => {
    await ledger.write(RECORD, undefined);
    const client = TableClient.fromConnectionString(connectionString(), tableName, {
      allowInsecureConnection: true,
    });

    const rows = [];
    for await (const row of client.listEntities()) rows.push(row);

    expect(rows).toEqual([
      expect.objectContaining({
        partitionKey: "certificate",
        rowKey: "4711",
        certificateName: "www-contoso-com",
        outcome: "renewal-scheduled",
      }),
    ]);
  });
});

describe("tableLedger when storage is down", () => {
  let down: Ledger;

  beforeAll(async () => {
    // What a stopped Azurite leaves behind: the same account, nobody listening.
    const port = await closedPort();
    down = tableLedger({
      connectionString: connectionString().replace(/:\d+\//g, `:${port}/`),
      tableName: "downledger",
    });
  });

  it.each([
    ["open", () => down.open()],
    ["read", () => down.read(1)],
    ["write", () => down.write(RECORD, undefined)],
  ])("%s fails with LEDGER_UNAVAILABLE naming the table", async (_, action) => {
    const error = await action().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CertschedError);
    expect(error).toMatchObject({ code: "LEDGER_UNAVAILABLE", retriable: true });
    expect((error as Error).message).toMatch(
      /^renewal ledger: cannot (open|read|write) table downledger \(ECONNREFUSED\)$/,
    );
  });
});
