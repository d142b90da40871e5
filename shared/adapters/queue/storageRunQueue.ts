import type { QueueClient } from "@azure/storage-queue";
import type { RunQueue } from "../../core/ports/runQueue.js";
import { RUN_QUEUE, type RunMessage } from "../../core/runs/run.js";
import { decodeRunMessage, runIdSchema, runMessageText } from "../../core/runs/runMessage.js";
import { CertschedError, ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import { failureOf, statusOf } from "../storage/table.js";

/** Where a run's message goes: the Storage Queue the trigger listens on, or this process. */

/** Messages one peek shows: the Storage Queue's most. */
const PEEK_MAX = 32;

/** The run a queued message names, plain or base64 JSON; undefined for anything else. */
function runIdOf(text: string): string | undefined {
  const decoded = decodeRunMessage(text);
  if (typeof decoded !== "object" || decoded === null) return undefined;
  const parsed = runIdSchema.safeParse((decoded as { runId?: unknown }).runId);
  return parsed.success ? parsed.data : undefined;
}

export interface StorageRunQueueOptions {
  /** AzureWebJobsStorage connection string (local development, Azurite): its QueueEndpoint. */
  readonly connectionString?: string | undefined;
  /** Queue endpoint (CERTSCHED_QUEUE_URI), reached with DefaultAzureCredential; wins. */
  readonly queueUri?: string | undefined;
  /** Default certsched-runs; tests use their own. */
  readonly queueName?: string;
  /** Longest wait for one storage call, in ms (CERTSCHED_HTTP_TIMEOUT); unset: no limit. */
  readonly timeoutMs?: number | undefined;
}

/** A QueueClient for `queueName`; @azure/storage-queue is imported here, on first use. */
export async function queueClient(
  where: Pick<StorageRunQueueOptions, "connectionString" | "queueUri">,
  queueName: string,
): Promise<QueueClient> {
  const { QueueServiceClient } = await import("@azure/storage-queue");
  const retryOptions = { maxTries: 3, retryDelayInMs: 200, maxRetryDelayInMs: 2_000 };
  if (where.queueUri) {
    const { DefaultAzureCredential } = await import("@azure/identity");
    return new QueueServiceClient(where.queueUri, new DefaultAzureCredential(), {
      retryOptions,
    }).getQueueClient(queueName);
  }
  return QueueServiceClient.fromConnectionString(where.connectionString ?? "", {
    retryOptions,
  }).getQueueClient(queueName);
}

/**
 * The Storage Queue. Messages are plain JSON text: host.json sets messageEncoding "none", so the
 * trigger reads them as sent (the SDK does not base64-encode either). The queue is created on
 * first send (Bicep creates it in Azure; Azurite starts empty).
 */
export function storageRunQueue(options: StorageRunQueueOptions): RunQueue {
  const queueName = options.queueName ?? RUN_QUEUE;
  let client: Promise<QueueClient> | undefined;
  let created: Promise<void> | undefined;
  const limit = () =>
    options.timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(options.timeoutMs) };
  const getClient = () => {
    client ??= queueClient(options, queueName).catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };
  return {
    kind: "storage",
    async holds(runId) {
      try {
        const queue = await getClient();
        const { peekedMessageItems: waiting } = await queue.peekMessages({
          numberOfMessages: PEEK_MAX,
          ...limit(),
        });
        if (waiting.some((m) => runIdOf(m.messageText) === runId)) return true;
        return waiting.length < PEEK_MAX ? false : undefined;
      } catch (error) {
        // No queue yet holds nothing; any other failure cannot tell.
        return statusOf(error) === 404 ? false : undefined;
      }
    },
    async send(message) {
      try {
        const queue = await getClient();
        created ??= queue
          .createIfNotExists(limit())
          .then(() => undefined)
          .catch((error: unknown) => {
            created = undefined;
            throw error;
          });
        await created;
        await queue.sendMessage(runMessageText(message), limit());
      } catch (error) {
        throw new CertschedError(
          "RUNS_UNAVAILABLE",
          `run queue: cannot send to queue ${queueName} (${failureOf(error)})`,
          { retriable: true, cause: error },
        );
      }
    },
  };
}

/**
 * No storage configured (tests, the sandbox): the "queue" is this process. A message is handed
 * to `deliver` on the next turn, like a host that picked it up at once; nothing survives a
 * restart. `deliver` does the retries and the poison handling itself (shared/app/runs.ts).
 */
export function inlineRunQueue(
  deliver: (message: RunMessage, log: Logger) => Promise<void>,
): RunQueue & { settled(): Promise<void> } {
  const pending = new Set<Promise<void>>();
  return {
    kind: "inline",
    async send(message, log) {
      const delivery = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => deliver(message, log))
        .catch((error: unknown) => {
          log.error(`certsched run ${message.runId}: ${redact(ensureError(error).message)}`);
        })
        .finally(() => pending.delete(delivery));
      pending.add(delivery);
    },
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
