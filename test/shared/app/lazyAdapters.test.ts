import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  accountNotifierOnFirstUse,
  inlineRunQueueOnFirstSend,
  memoryRunStoreOnFirstUse,
  notifierOnFirstUse,
  tableHistoryOnFirstUse,
  tableInventoryOnFirstUse,
  tableLedgerOnFirstUse,
} from "../../../shared/app/lazyAdapters.js";
import { noNotifier } from "../../../shared/core/ports/notifier.js";
import type { SweepSummary } from "../../../shared/core/renewal/summary.js";
import { silentLogger } from "../../../shared/lib/log.js";
import { seenIssuance } from "../../support/seenIssuances.js";
import { sampleAlert } from "../../support/vaultEvents.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

const FAILED: SweepSummary = {
  dryRun: false,
  startedAt: "2026-03-01T03:00:00.000Z",
  durationMs: 12,
  ledger: "none",
  listError: "list certificates failed: 503",
  results: [],
  rejected: [],
  counts: {
    due: 0,
    "renewal-scheduled": 0,
    "would-renew": 0,
    skipped: 0,
    failed: 0,
    stuck: 0,
    blocked: 0,
    "not-attempted": 0,
    deferred: 0,
    waiting: 0,
    disabled: 0,
  },
  failed: true,
  problems: ["list certificates failed: 503"],
};

describe("the stores built on first use", () => {
  // No table is reached: building them must not need one (the storage answers on first call).
  const where = { connectionString: "UseDevelopmentStorage=true", tableName: "unused" };

  it.each([
    ["ledger", () => tableLedgerOnFirstUse(where), ["open", "read", "write"]],
    [
      "history",
      () => tableHistoryOnFirstUse(where),
      ["append", "events", "runs", "removeBefore", "recordRequests", "requestsSince"],
    ],
    [
      "inventory",
      () => tableInventoryOnFirstUse(where),
      ["upsert", "recordVerification", "recordPreflight", "recordAri", "list", "get"],
    ],
  ] as const)(
    "the %s says kind table at once and has every method of the port",
    (_, build, methods) => {
      const port = build() as unknown as Record<string, unknown>;
      expect(port.kind).toBe("table");
      for (const name of methods) expect(typeof port[name], name).toBe("function");
    },
  );
});

describe("the webhook notifier built on first message", () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it("posts the first message as the notifier would, and closes", async () => {
    const notifier = notifierOnFirstUse({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: false,
    });
    expect(await notifier.notify(FAILED, silentLogger)).toBe("sent");
    expect(receiver.received.map((r) => r.url)).toEqual(["/hook"]);
    await notifier.close();
  });

  it("closing one that never posted sends nothing and resolves", async () => {
    const notifier = notifierOnFirstUse({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: false,
    });
    await notifier.close();
    expect(receiver.received).toEqual([]);
  });

  it("an account's notifier names the account; no notifier stays none", async () => {
    const app = notifierOnFirstUse({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: false,
    });
    const contoso = accountNotifierOnFirstUse(app, "contoso", true);
    expect(await contoso.notify(FAILED, silentLogger)).toBe("sent");
    expect(receiver.received[0]?.json).toMatchObject({ account: "contoso" });
    // An issuance's message goes through too, one per issuance, naming its own account.
    expect(
      await contoso.notifyIssuances([seenIssuance({ account: "contoso" })], silentLogger),
    ).toBe("sent");
    expect(receiver.received[1]?.json).toMatchObject({ event: "issuance", account: "contoso" });
    // A Key Vault event's alert too, given the account it names none.
    expect(
      await contoso.notifyVaultAlerts([sampleAlert({ account: undefined })], silentLogger),
    ).toBe("sent");
    expect(receiver.received[2]?.json).toMatchObject({ event: "vault-alert", account: "contoso" });
    await app.close();
    expect(accountNotifierOnFirstUse(noNotifier, "contoso", true)).toBe(noNotifier);
  });
});

describe("the runs built on first use", () => {
  it("the in-process queue hands each message to deliver on a later turn; settled waits for it", async () => {
    const delivered: string[] = [];
    const queue = inlineRunQueueOnFirstSend(async (message) => {
      delivered.push(message.runId);
    });
    expect(queue.kind).toBe("inline");
    await queue.settled();
    await queue.send({ runId: "run-1" } as Parameters<typeof queue.send>[0], silentLogger);
    expect(delivered).toEqual([]);
    await queue.settled();
    expect(delivered).toEqual(["run-1"]);
  });

  it("the memory store is one store, made once: what one call keeps, the next reads", async () => {
    const store = memoryRunStoreOnFirstUse();
    expect(store.kind).toBe("memory");
    const at = new Date("2026-03-01T03:00:00.000Z");
    expect(await store.noteRefusal?.("contoso", at)).toEqual(at);
    expect(await store.noteRefusal?.("contoso", new Date(at.getTime() + 60_000))).toEqual(at);
  });
});
