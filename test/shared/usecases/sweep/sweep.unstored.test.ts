import { TableClient } from "@azure/data-tables";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import {
  INVENTORY_PARTITION,
  inventoryRowKey,
} from "../../../../shared/adapters/storage/rows/inventoryRow.js";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import { MAX_CERTIFICATE_NAME_CHARS } from "../../../../shared/core/certificate/records.js";
import { memoryHistory } from "../../../../shared/core/ports/history.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { startSimulator } from "../../../../sim/index.js";
import {
  type AppHarness,
  collectingLogger,
  runtimeFor,
  startHarness,
  uniqueTableName,
} from "../../../support/app.js";

/**
 * A write that fails for one certificate names that certificate: the warning named
 * the first three certificates of the call, which were stored, and not the one that was not.
 * Over Azurite: the stored rows are read back.
 */

const DUE = ["due-1", "due-2", "due-3", "due-4", "due-5"];
/** Longer than a string property holds (32 Ki UTF-16 characters): Table storage refuses it. */
const TOO_LONG = `too-long-${"x".repeat(40_000)}`;

let app: AppHarness;
beforeAll(async () => {
  app = await startHarness({
    certificates: DUE.map((certificateName, i) => ({
      certificateName,
      expiryDate: new Date(Date.now() + (3 + i) * DAY_MS),
    })),
  });
});
beforeEach(() => app.sim.reset());
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

const connectionString = () => inject("azuriteTableConnectionString");

describe("a sweep's inventory write that fails for one certificate", () => {
  it("names that certificate in the warning, not the first three listed, and stores the others", async () => {
    const tableName = uniqueTableName("inv");
    const inventory = tableInventory({ connectionString: connectionString(), tableName });
    const client = TableClient.fromConnectionString(connectionString(), tableName, {
      allowInsecureConnection: true,
    });
    await client.createTable();
    // A row a person broke in Storage Explorer: certsched leaves it alone.
    await client.createEntity({
      partitionKey: INVENTORY_PARTITION,
      rowKey: inventoryRowKey("due-4"),
      certificateName: "due-4",
      source: "guess",
    });
    const runtime = runtimeFor(app.sim, {}, { inventory, ledger: memoryLedger() });
    try {
      const { log, lines } = collectingLogger();

      const summary = await sweep(runtime, log, { trigger: "cli" });

      expect(summary.counts["renewal-scheduled"]).toBe(5);
      const warnings = lines.filter((l) => l.level === "warn").map((l) => l.message);
      expect(warnings).toEqual([
        expect.stringMatching(
          /^certsched could not update the inventory for due-4 \(the work itself is done.*inventory row due-4 .*source/,
        ),
      ]);
      const { items, invalid } = await inventory.list();
      expect(items.map((r) => r.certificateName)).toEqual(["due-1", "due-2", "due-3", "due-5"]);
      expect(invalid).toHaveLength(1);
    } finally {
      await runtime.close();
    }
  });
});

describe("a history write that fails for one certificate", () => {
  it("names that certificate, and writes every other event and the run", async () => {
    const tableName = uniqueTableName("hist");
    const history = tableHistory({ connectionString: connectionString(), tableName });
    const at = new Date("2026-11-23T03:00:00.000Z");
    const event = (certificateName: string) => ({
      at,
      certificateName,
      event: "renewal-scheduled" as const,
      trigger: "timer" as const,
      runId: "run-1",
    });
    const run = {
      runId: "run-1",
      trigger: "timer" as const,
      startedAt: at,
      finishedAt: at,
      dryRun: false,
      failed: false,
      ledger: "table",
      counts: { "renewal-scheduled": 4 },
      problems: [],
    };

    const written = history.append(["due-1", TOO_LONG, "due-2", "due-3", "due-5"].map(event), run);

    await expect(written).rejects.toMatchObject({
      code: "HISTORY_UNAVAILABLE",
      certificateNames: [TOO_LONG],
      message: expect.stringMatching(
        /^run history: cannot write the events of too-long-x+… \(40009 characters\) to table \w+ \(400\)$/,
      ),
    });
    const read = await history.events({ since: at });
    expect(read.items.map((e) => e.certificateName).sort()).toEqual([
      "due-1",
      "due-2",
      "due-3",
      "due-5",
    ]);
    expect((await history.runs(5)).items.map((r) => r.runId)).toEqual(["run-1"]);
    // The memory history (the sandbox's) keeps the same name whole.
    const memory = memoryHistory();
    await memory.append([event(TOO_LONG)]);
    expect((await memory.events({ since: at })).items[0]?.certificateName).toBe(TOO_LONG);
  });
});

describe("a name longer than a Table storage property holds (32 Ki characters)", () => {
  it("is a rejected record naming the field and the rule; every other certificate is renewed and stored", async () => {
    const longest = `a${"n".repeat(MAX_CERTIFICATE_NAME_CHARS - 1)}`;
    const tooLong = `z${"n".repeat(MAX_CERTIFICATE_NAME_CHARS)}`;
    const sim = await startSimulator({
      certificates: ["b-1", tooLong, longest, "c-3"].map((certificateName, i) => ({
        certificateName,
        expiryDate: new Date(Date.now() + (3 + i) * DAY_MS),
      })),
    });
    const stores = { connectionString: connectionString(), timeoutMs: 10_000 };
    const inventory = tableInventory({ ...stores, tableName: uniqueTableName("inv") });
    const history = tableHistory({ ...stores, tableName: uniqueTableName("hist") });
    const ledger = tableLedger({ ...stores, tableName: uniqueTableName("led") });
    const runtime = runtimeFor(sim, {}, { inventory, history, ledger });
    try {
      const { log, lines } = collectingLogger();

      const summary = await sweep(runtime, log, { trigger: "cli" });

      // Before: the ledger refused the long name's row (400), and the sweep started nothing more.
      expect(summary.ledger).toBe("table");
      expect(summary.results.map((r) => [r.certificateName, r.outcome])).toEqual([
        ["b-1", "renewal-scheduled"],
        // Sent: the service's sentence quoting a name this long is past what a confirmation
        // holds (8 KiB), so it reads as failed; the tables hold it all the same.
        [longest, "failed"],
        ["c-3", "renewal-scheduled"],
      ]);
      expect(summary.problems).toContainEqual(
        expect.stringMatching(
          new RegExp(`certificateName.*must be at most ${MAX_CERTIFICATE_NAME_CHARS} characters`),
        ),
      );
      expect(lines.filter((l) => /could not|unavailable/.test(l.message))).toEqual([]);
      // The longest name a property holds is stored whole, in every table.
      expect((await inventory.get(longest))?.certificateName).toBe(longest);
      const events = await history.events({ certificateName: longest, since: new Date(0) });
      expect(events.items.map((e) => e.event)).toEqual(["failed"]);
      const id = sim.certificates().find((c) => c.certificateName === longest)?.id ?? 0;
      expect((await ledger.read(id))?.record.certificateName).toBe(longest);
      // Nothing was sent for the refused one.
      expect(sim.requestsFor("publicRenew")).toHaveLength(3);
    } finally {
      await runtime.close();
      await sim.close();
    }
  });
});
