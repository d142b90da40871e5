import { TableClient } from "@azure/data-tables";
import { describe, expect, inject, it } from "vitest";
import { eventPartition, MAX_TEXT } from "../../../../shared/adapters/storage/rows/historyRow.js";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import type { CertificateEvent, RunRecord } from "../../../../shared/core/history/events.js";
import { type History, memoryHistory } from "../../../../shared/core/ports/history.js";
import { uniqueTableName } from "../../../support/app.js";

const T = new Date("2026-11-23T03:00:00.000Z");
const at = (ms: number) => new Date(T.getTime() + ms);

const event = (
  name: string,
  when: Date,
  more: Partial<CertificateEvent> = {},
): CertificateEvent => ({
  at: when,
  certificateName: name,
  event: "renewal-scheduled",
  trigger: "timer",
  runId: "run-1",
  ...more,
});

const run = (runId: string, startedAt: Date): RunRecord => ({
  runId,
  trigger: "timer",
  startedAt,
  finishedAt: at(startedAt.getTime() - T.getTime() + 1_000),
  dryRun: false,
  failed: false,
  ledger: "table",
  counts: { due: 1, "renewal-scheduled": 1 },
  problems: [],
});

function table(): { history: History; client: TableClient } {
  const connectionString = inject("azuriteTableConnectionString");
  const tableName = uniqueTableName("hist");
  return {
    history: tableHistory({ connectionString, tableName }),
    client: TableClient.fromConnectionString(connectionString, tableName, {
      allowInsecureConnection: true,
    }),
  };
}

// The same rules for both stores: the memory one stands in for the table in callers' tests.
describe.each([
  ["table", () => table().history],
  ["memory", () => memoryHistory()],
])("%s history", (_kind, make) => {
  it("reads events newest first, one certificate or all, from `since` inclusive", async () => {
    const history = make();
    await history.append([event("a", at(0)), event("b", at(1_000)), event("a", at(2_000))]);

    const all = await history.events({ since: at(1_000) });
    const a = await history.events({ certificateName: "a", since: at(0) });
    const none = await history.events({ since: at(2_001) });

    expect(all.items.map((e) => [e.certificateName, e.at.getTime() - T.getTime()])).toEqual([
      ["a", 2_000],
      ["b", 1_000],
    ]);
    expect(a.items.map((e) => e.at.getTime() - T.getTime())).toEqual([2_000, 0]);
    expect(none.items).toEqual([]);
  });

  it("keeps names with characters a table key refuses, and every field", async () => {
    const history = make();
    const name = "shop/eu#1?x\\y 'quoted' é";
    const full = event(name, at(0), {
      id: 42,
      event: "failed",
      trigger: "http",
      by: "entra:ops@contoso.com (oid)",
      reason: "ManualRequest",
      detail: "refused",
      status: 400,
      error: "UPSTREAM_REJECTED",
      expiryDate: at(5 * 86_400_000),
    });
    await history.append([full]);

    expect((await history.events({ certificateName: name, since: at(0) })).items).toEqual([full]);
  });

  it("keeps events of names longer than a key holds, each under its own name", async () => {
    const history = make();
    const names = [
      "a".repeat(507),
      "a".repeat(508),
      `long-${"n".repeat(1_995)}`,
      "証明書".repeat(50),
      `${"b".repeat(600)}1`,
      `${"b".repeat(600)}2`,
    ];
    await history.append(names.map((name, i) => event(name, at(i * 1_000), { id: i + 1 })));

    for (const [i, name] of names.entries()) {
      const read = await history.events({ certificateName: name, since: at(0) });
      expect(read).toEqual({ items: [event(name, at(i * 1_000), { id: i + 1 })], invalid: [] });
    }
    const all = await history.events({ since: at(0) });
    expect(all.items.map((e) => e.certificateName)).toEqual([...names].reverse());
  });

  it("lists the latest runs first, as many as asked", async () => {
    const history = make();
    await history.append([], run("first", at(0)));
    await history.append([], run("second", at(60_000)));
    await history.append([], run("third", at(120_000)));

    expect((await history.runs(2)).items.map((r) => r.runId)).toEqual(["third", "second"]);
    expect((await history.runs(10)).items[2]).toEqual(run("first", at(0)));
  });

  it("keeps one row per run: appended again (after its bookkeeping), the later replaces it", async () => {
    const history = make();
    const first = { ...run("r", at(0)), bookkeeping: { incomplete: ["events", "inventory"] } };
    await history.append([], first);
    expect((await history.runs(10)).items).toEqual([first]);
    await history.append([], { ...run("r", at(0)), bookkeeping: { incomplete: ["verification"] } });
    expect((await history.runs(10)).items.map((r) => r.bookkeeping)).toEqual([
      { incomplete: ["verification"] },
    ]);
    await history.append([], run("r", at(0)));
    const [done] = (await history.runs(10)).items;
    expect(done).toEqual(run("r", at(0)));
    expect(done).not.toHaveProperty("bookkeeping");
  });

  it("removes rows from before the cutoff and keeps the cutoff itself", async () => {
    const history = make();
    await history.append([event("old", at(-1)), event("edge", at(0))], run("old-run", at(-1)));
    await history.append([], run("edge-run", at(0)));

    expect(await history.removeBefore(at(0))).toBe(2);
    expect((await history.events({ since: at(-10) })).items.map((e) => e.certificateName)).toEqual([
      "edge",
    ]);
    expect((await history.runs(10)).items.map((r) => r.runId)).toEqual(["edge-run"]);
  });
});

describe("table history: rows read back are input", () => {
  it("an empty, never-written table reads as no history and cleans up nothing", async () => {
    const { history } = table();

    expect(await history.events({ since: T })).toEqual({ items: [], invalid: [] });
    expect(await history.runs(5)).toEqual({ items: [], invalid: [] });
    expect(await history.removeBefore(T)).toBe(0);
  });

  it("names a row it cannot read, by its field, and reads the others", async () => {
    const { history, client } = table();
    await history.append([event("a", at(0))]);
    await client.createEntity({
      partitionKey: eventPartition("a"),
      rowKey: "0000000000000-bad",
      at: "yesterday",
      certificateName: "a",
      event: "exploded",
      trigger: "timer",
      runId: "r",
    });

    const read = await history.events({ certificateName: "a", since: new Date(0) });

    expect(read.items.map((e) => e.certificateName)).toEqual(["a"]);
    expect(read.invalid).toHaveLength(1);
    expect(read.invalid[0]).toMatch(/history row 0000000000000-bad .*at: must be an ISO-8601/);
    expect(read.invalid[0]).toMatch(/event: must be one of manual-request, /);
  });

  it("shortens long texts to what a property holds", async () => {
    const { history } = table();
    await history.append([event("a", at(0), { detail: "x".repeat(70_000) })]);

    const [stored] = (await history.events({ since: at(0) })).items;
    expect(stored?.detail).toHaveLength(MAX_TEXT);
    expect(stored?.detail?.endsWith("…")).toBe(true);
  });
});
