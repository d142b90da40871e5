import { describe, expect, inject, it } from "vitest";
import {
  inlineRecheckQueueOnFirstSend,
  memoryVaultEventsOnFirstUse,
  storageRecheckQueueOnFirstUse,
  tableVaultEventsOnFirstUse,
} from "../../../shared/app/lazyVaultEvents.js";
import type { RecheckMessage } from "../../../shared/core/ports/vaultEvents.js";
import { eventKey } from "../../../shared/core/vaultEvents/vaultEvent.js";
import { silentLogger } from "../../../shared/lib/log.js";
import { uniqueTableName } from "../../support/app.js";

const T = new Date("2026-12-02T10:00:00.000Z");
const base = {
  kind: "new-version" as const,
  vaultName: "kv",
  certificateName: "www",
  version: "v1",
  eventId: "e1",
  claimedAt: T,
};
const record = { key: eventKey(base), ...base };
const MESSAGE: RecheckMessage = {
  account: "default",
  vaultName: "kv",
  certificateName: "www",
  version: "v1",
  names: ["www.contoso.com"],
  until: "2026-12-03T10:00:00.000Z",
  attempt: 1,
};

describe("the Key Vault events' adapters built on first use", () => {
  it("the stores say their kind at once, and do what the store does once loaded", async () => {
    expect(
      tableVaultEventsOnFirstUse({ connectionString: "UseDevelopmentStorage=true" }).kind,
    ).toBe("table");
    const table = tableVaultEventsOnFirstUse({
      connectionString: inject("azuriteTableConnectionString"),
      tableName: uniqueTableName("velazy"),
      timeoutMs: 10_000,
    });
    const memory = memoryVaultEventsOnFirstUse();
    expect(memory.kind).toBe("memory");
    for (const store of [table, memory]) {
      expect(await store.claim("default", record, 60_000)).toBe("claimed");
      await store.complete("default", record.key, "consumers serve it", T);
      expect(await store.claim("default", record, 60_000)).toBe("done");
      expect((await store.list("default", T)).items.map((r) => r.outcome)).toEqual([
        "consumers serve it",
      ]);
    }
  });

  it("the queues say their kind at once; the inline one settles and closes with nothing sent, and delivers what is", async () => {
    expect(
      storageRecheckQueueOnFirstUse({ connectionString: "UseDevelopmentStorage=true" }).kind,
    ).toBe("storage");
    const delivered: RecheckMessage[] = [];
    const inline = inlineRecheckQueueOnFirstSend(async (m) => {
      delivered.push(m);
    });
    expect(inline.kind).toBe("inline");
    await inline.settled();
    await inline.close();
    const queue = inlineRecheckQueueOnFirstSend(async (m) => {
      delivered.push(m);
    });
    await queue.send(MESSAGE, 0, silentLogger);
    await queue.settled();
    expect(delivered).toEqual([MESSAGE]);
  });
});
