import { describe, expect, it } from "vitest";
import { memoryInventory } from "../../../../shared/core/ports/inventory.js";
import type { LedgerRecord } from "../../../../shared/core/ports/ledger.js";
import type { StatusSources } from "../../../../shared/core/status/statusSources.js";
import { ValidationError } from "../../../../shared/lib/errors.js";
import { loadOne, loadStatus } from "../../../../shared/usecases/steps/loadStatus.js";

/*
 * The status loader's joins: inventory and ledger by name, one listing of each, the row of the
 * right id, the bound. The sources are in-process stand-ins with the real interfaces (the table
 * ones are exercised end to end in test/functions/handlers/listCertificates.test.ts).
 */

const SEEN = new Date("2026-03-01T00:00:00.000Z");

function row(id: number, certificateName: string, lastRequestedAt?: string): LedgerRecord {
  const last = lastRequestedAt ? new Date(lastRequestedAt) : undefined;
  return {
    id,
    certificateName,
    expiryAtRequest: new Date("2026-03-06T00:00:00.000Z"),
    firstRequestedAt: last,
    lastRequestedAt: last,
    outcome: last ? "renewal-scheduled" : "failed",
    attempts: 1,
    detail: undefined,
  };
}

async function sources(
  inventoryNames: readonly [string, number?][],
  rows: readonly LedgerRecord[],
  invalid: readonly string[] = [],
) {
  const inventory = memoryInventory();
  await inventory.upsert(
    inventoryNames.map(([certificateName, id]) => ({
      certificateName,
      ...(id !== undefined ? { id } : {}),
      source: "due-list" as const,
      seenAt: SEEN,
    })),
  );
  const calls = { list: 0, read: [] as number[] };
  const s: StatusSources = {
    inventory,
    ledgerRows: async () => {
      calls.list += 1;
      return { items: [...rows], invalid: [...invalid] };
    },
    ledgerRow: async (id) => {
      calls.read.push(id);
      if (id === 666)
        throw new ValidationError("ledger row 666 in table t", [
          { name: "outcome", message: "must be one of ..." },
        ]);
      return rows.find((r) => r.id === id);
    },
  };
  return { s, calls };
}

describe("loadStatus", () => {
  it("joins the inventory and the ledger by name, every name of either, in code-unit order, one listing each", async () => {
    const { s, calls } = await sources(
      [
        ["b", 2],
        ["a", 1],
        ["Z", 9],
      ],
      [row(2, "b", "2026-03-01T01:00:00Z"), row(3, "c")],
      ["ledger row 7 in table t: outcome must be one of ..."],
    );

    const loaded = await loadStatus(s);

    expect(loaded.inputs.map((i) => [i.certificateName, i.inventory?.id, i.ledger?.id])).toEqual([
      ["Z", 9, undefined],
      ["a", 1, undefined],
      ["b", 2, 2],
      ["c", undefined, 3],
    ]);
    expect(loaded.invalid).toEqual(["ledger row 7 in table t: outcome must be one of ..."]);
    expect(loaded.truncated).toBe(false);
    expect(calls).toEqual({ list: 1, read: [] });
  });

  it("given names: each once, known or not, sorted", async () => {
    const { s } = await sources([["a", 1]], [row(3, "c")]);

    const loaded = await loadStatus(s, { names: ["nope", "c", "a", "c"] });

    expect(loaded.inputs.map((i) => i.certificateName)).toEqual(["a", "c", "nope"]);
    expect(loaded.inputs[2]).toEqual({
      certificateName: "nope",
      inventory: undefined,
      ledger: undefined,
    });
  });

  it("of several rows of one name, takes the inventory's id, else the last asked for", async () => {
    const rows = [
      row(10, "x", "2026-03-01T05:00:00Z"),
      row(11, "x", "2026-03-01T09:00:00Z"),
      row(12, "x"),
      row(20, "y", "2026-03-01T05:00:00Z"),
      row(21, "y", "2026-03-01T09:00:00Z"),
    ];
    const { s } = await sources([["x", 10]], rows);

    const loaded = await loadStatus(s);

    expect(loaded.inputs.map((i) => [i.certificateName, i.ledger?.id])).toEqual([
      ["x", 10],
      ["y", 21],
    ]);
  });

  it("keeps at most `max` certificates, the first by name, and says it left some off", async () => {
    const { s } = await sources([["c"], ["a"], ["b"]], []);

    const exact = await loadStatus(s, { max: 3 });
    const fewer = await loadStatus(s, { max: 2 });

    expect(exact.truncated).toBe(false);
    expect(fewer.inputs.map((i) => i.certificateName)).toEqual(["a", "b"]);
    expect(fewer.truncated).toBe(true);
  });
});

describe("loadOne", () => {
  it("reads the row of the id it is given, without listing the ledger", async () => {
    const { s, calls } = await sources([], [row(5, "www", "2026-03-01T01:00:00Z")]);

    const { input, invalid } = await loadOne(s, "www", 5);

    expect(input.ledger?.id).toBe(5);
    expect(invalid).toEqual([]);
    expect(calls).toEqual({ list: 0, read: [5] });
  });

  it("takes the id from the inventory when none is given", async () => {
    const { s, calls } = await sources([["www", 5]], [row(5, "www")]);

    const { input } = await loadOne(s, "www");

    expect(input.ledger?.id).toBe(5);
    expect(input.inventory?.id).toBe(5);
    expect(calls.read).toEqual([5]);
  });

  it("ignores a row of that id under another name (the record was re-created)", async () => {
    const { s } = await sources([], [row(5, "old-name")]);

    expect((await loadOne(s, "www", 5)).input.ledger).toBeUndefined();
  });

  it("names a row it cannot read instead of failing", async () => {
    const { s } = await sources([["www", 666]], []);

    const { input, invalid } = await loadOne(s, "www");

    expect(input.inventory?.id).toBe(666);
    expect(input.ledger).toBeUndefined();
    expect(invalid).toEqual([expect.stringContaining("ledger row 666")]);
  });

  it("lists the ledger when the sources read no single row (the CLI's)", async () => {
    const { s, calls } = await sources([], [row(8, "www")]);
    const { ledgerRow: _, ...listingOnly } = s;

    const { input } = await loadOne(listingOnly, "www", 8);

    expect(input.ledger?.id).toBe(8);
    expect(calls).toEqual({ list: 1, read: [] });
  });

  it("lists the ledger when no id is known anywhere", async () => {
    const { s, calls } = await sources([], [row(8, "www")]);

    const { input } = await loadOne(s, "www");

    expect(input.ledger?.id).toBe(8);
    expect(calls).toEqual({ list: 1, read: [] });
  });
});
