import { randomUUID } from "node:crypto";
import { type QueueClient, QueueServiceClient } from "@azure/storage-queue";
import { describe, expect, inject, it } from "vitest";
import {
  delaySeconds,
  MAX_DELAY_SECONDS,
  recheckMessageText,
  storageRecheckQueue,
} from "../../../../shared/adapters/queue/storageRecheckQueue.js";
import { RECHECK_QUEUE, type RecheckMessage } from "../../../../shared/core/ports/vaultEvents.js";
import { silentLogger } from "../../../../shared/lib/log.js";
import { deliverOne } from "../../../support/hostLoop.js";

/**
 * The recheck queue on Azurite's Storage Queue: a message sent is what the host's queue trigger
 * hands the handler (read by the stand-in of test/support/hostLoop.ts, with host.json's
 * encoding), invisible until its delay has passed.
 */

const MESSAGE: RecheckMessage = {
  account: "default",
  vaultName: "contoso-kv",
  certificateName: "www-contoso",
  version: "0123456789abcdef0123456789abcdef",
  names: ["www.contoso.com", "bücher.example", "名前.example"],
  until: "2026-12-03T10:00:00.000Z",
  attempt: 2,
};

const HOUR = 3_600_000;

function onAzurite() {
  const connectionString = inject("azuriteTableConnectionString");
  const queueName = `rechecks-${randomUUID()}`.slice(0, 40);
  const service = QueueServiceClient.fromConnectionString(connectionString);
  const queue = service.getQueueClient(queueName);
  const poison = service.getQueueClient(`${queueName}-poison`);
  return { queue, poison, recheck: storageRecheckQueue({ connectionString, queueName }) };
}

/** What the trigger would hand the handler for the next visible message; undefined: none. */
async function triggered(queue: QueueClient, poison: QueueClient): Promise<unknown> {
  let handed: unknown;
  const delivered = await deliverOne({
    queue,
    poison,
    functionName: "recheckVaultConsumers",
    handler: async (message) => {
      handed = message;
    },
  });
  return delivered === undefined ? undefined : handed;
}

describe("the storage recheck queue", () => {
  it("a message sent without delay is what the queue trigger hands the handler, every field as sent", async () => {
    const { queue, poison, recheck } = onAzurite();
    expect(recheck.kind).toBe("storage");
    await recheck.send(MESSAGE, 0, silentLogger);
    expect(await triggered(queue, poison)).toEqual(MESSAGE);
  });

  it("a delayed message is not visible before its time: a peek shows nothing, the trigger gets nothing", async () => {
    const { queue, poison, recheck } = onAzurite();
    await recheck.send(MESSAGE, HOUR, silentLogger);
    const peeked = await queue.peekMessages();
    expect(peeked.peekedMessageItems).toEqual([]);
    expect(await triggered(queue, poison)).toBeUndefined();
    const { approximateMessagesCount } = await queue.getProperties();
    expect(approximateMessagesCount).toBe(1);
  });

  it("sends to certsched-vault-rechecks by default", () => {
    expect(RECHECK_QUEUE).toBe("certsched-vault-rechecks");
  });

  it("no storage reachable: STORAGE_UNAVAILABLE naming the queue, retriable", async () => {
    const recheck = storageRecheckQueue({
      connectionString:
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;QueueEndpoint=http://127.0.0.1:1/devstoreaccount1;",
      timeoutMs: 2_000,
    });
    const failed = await recheck.send(MESSAGE, 0, silentLogger).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: "STORAGE_UNAVAILABLE", retriable: true });
    expect((failed as Error).message).toContain(`queue ${RECHECK_QUEUE}`);
  });
});

describe("the recheck message and its delay", () => {
  it("the text is ASCII JSON that reads back as the message", () => {
    const text = recheckMessageText(MESSAGE);
    expect(text).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(text)).toEqual(MESSAGE);
  });

  it("delays are whole seconds rounded up, from 0 to 7 days", () => {
    expect([0, 1, 999, 1_000, 1_001, -5, Number.NaN].map(delaySeconds)).toEqual([
      0, 1, 1, 1, 2, 0, 0,
    ]);
    expect(delaySeconds(30 * 86_400_000)).toBe(MAX_DELAY_SECONDS);
    expect(delaySeconds(Number.POSITIVE_INFINITY)).toBe(MAX_DELAY_SECONDS);
  });
});
