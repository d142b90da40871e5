import type { QueueClient } from "@azure/storage-queue";
import {
  RECHECK_QUEUE,
  type RecheckMessage,
  type RecheckQueue,
} from "../../core/ports/vaultEvents.js";
import { CertschedError } from "../../lib/errors.js";
import { failureOf } from "../storage/table.js";
import { queueClient, type StorageRunQueueOptions } from "./storageRunQueue.js";

/**
 * The later checks of a vault certificate's consumers, as messages on the app's Storage Queue
 * certsched-vault-rechecks, each invisible until its time: the queue trigger
 * (functions/recheckVaultConsumers.ts) reads it then.
 */

/** The Storage Queue's longest visibility timeout: 7 days, in seconds. */
export const MAX_DELAY_SECONDS = 7 * 24 * 3600;

/** The visibility timeout of a delay: whole seconds, rounded up, from 0 to 7 days. */
export function delaySeconds(delayMs: number): number {
  if (Number.isNaN(delayMs) || delayMs <= 0) return 0;
  return Math.min(MAX_DELAY_SECONDS, Math.ceil(delayMs / 1000));
}

/**
 * The message text: JSON, as the trigger reads it (host.json messageEncoding "none": the text as
 * sent, no base64), ASCII only (every other character as a JSON \u escape, which reads back
 * the same), the fields of RecheckMessage and no other.
 */
export function recheckMessageText(message: RecheckMessage): string {
  const json = JSON.stringify({
    account: message.account,
    vaultName: message.vaultName,
    certificateName: message.certificateName,
    version: message.version,
    names: [...message.names],
    until: message.until,
    attempt: message.attempt,
  });
  return json.replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

export type StorageRecheckQueueOptions = Omit<StorageRunQueueOptions, "queueName"> & {
  /** Default RECHECK_QUEUE; tests use their own. */
  readonly queueName?: string;
};

/**
 * The Storage Queue (CERTSCHED_QUEUE_URI with the app's identity, else the connection string's
 * QueueEndpoint). The queue is created on first send (infra/ creates it in Azure; Azurite
 * starts empty). A message lives 7 days past its visibility, time enough for the trigger.
 */
export function storageRecheckQueue(options: StorageRecheckQueueOptions): RecheckQueue {
  const queueName = options.queueName ?? RECHECK_QUEUE;
  let client: Promise<QueueClient> | undefined;
  let created: Promise<void> | undefined;
  const limit = () =>
    options.timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(options.timeoutMs) };
  const ready = async (): Promise<QueueClient> => {
    client ??= queueClient(options, queueName).catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    const queue = await client;
    created ??= queue
      .createIfNotExists(limit())
      .then(() => undefined)
      .catch((error: unknown) => {
        created = undefined;
        throw error;
      });
    await created;
    return queue;
  };
  return {
    kind: "storage",
    async send(message, delayMs) {
      const visibilityTimeout = delaySeconds(delayMs);
      try {
        await (await ready()).sendMessage(recheckMessageText(message), {
          visibilityTimeout,
          messageTimeToLive: visibilityTimeout + MAX_DELAY_SECONDS,
          ...limit(),
        });
      } catch (error) {
        throw new CertschedError(
          "STORAGE_UNAVAILABLE",
          `recheck queue: cannot send to queue ${queueName} (${failureOf(error)})`,
          { retriable: true, cause: error },
        );
      }
    },
  };
}
