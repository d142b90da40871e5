import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { InvocationContext } from "@azure/functions";
import type { QueueClient } from "@azure/storage-queue";
import type { LogLine } from "./app.js";

/**
 * A STAND-IN for the Functions host's queue listener, which cannot run here (Core Tools cannot
 * be installed). It does what the host documents, against the real Azurite queue, with the
 * settings read from our host.json:
 * - receives `batchSize` messages at a time and runs them at once, fetching the next batch when
 *   no more than `newBatchThreshold` are still running (the host's rule: at most batchSize +
 *   newBatchThreshold at once per function), and hands the handler what the host would: the
 *   text as sent (messageEncoding "none"; base64 decoded if host.json said so), parsed when it is
 *   JSON, and triggerMetadata with the message's id and dequeueCount;
 * - deletes the message when the handler resolves;
 * - when it throws, leaves the message for another delivery, and once its dequeueCount reaches
 *   maxDequeueCount moves it to `<queue>-poison` (the host's naming rule) and deletes it.
 * What it does NOT do: wait visibilityTimeout before a retry (the message is made visible at
 * once, so a test takes no minute per retry), renew the lease of a long invocation
 * (the lease is `leaseSeconds`, 10 min unless given), or back off polling an empty queue. Tests that need those are for a
 * real host.
 */

export interface HostQueueSettings {
  readonly maxDequeueCount: number;
  /** Seconds the host waits before delivering a failed message again. */
  readonly visibilityTimeoutSeconds: number;
  readonly messageEncoding: "base64" | "none";
  readonly batchSize: number;
  /** Fetch the next batch once no more than this many are running (host default batchSize/2). */
  readonly newBatchThreshold: number;
}

/** extensions.queues of host.json, with the host's defaults for what it leaves out. */
export function hostQueueSettings(
  path = new URL("../../host.json", import.meta.url),
): HostQueueSettings {
  const host = JSON.parse(readFileSync(path, "utf8")) as {
    extensions?: { queues?: Record<string, unknown> };
  };
  const q = host.extensions?.queues ?? {};
  const timeout = typeof q.visibilityTimeout === "string" ? q.visibilityTimeout : "00:00:00";
  const [h = 0, m = 0, s = 0] = timeout.split(":").map(Number);
  const batchSize = typeof q.batchSize === "number" ? q.batchSize : 16;
  return {
    maxDequeueCount: typeof q.maxDequeueCount === "number" ? q.maxDequeueCount : 5,
    visibilityTimeoutSeconds: h * 3600 + m * 60 + s,
    messageEncoding: q.messageEncoding === "none" ? "none" : "base64",
    batchSize,
    newBatchThreshold:
      typeof q.newBatchThreshold === "number" ? q.newBatchThreshold : Math.floor(batchSize / 2),
  };
}

export type QueueHandler = (message: unknown, context: InvocationContext) => Promise<void>;

/** What one delivery did. */
export interface Delivered {
  readonly messageId: string;
  readonly dequeueCount: number;
  readonly outcome: "done" | "retry" | "poisoned";
  readonly error?: unknown;
}

export interface HostLoopOptions {
  readonly queue: QueueClient;
  /** The poison queue; `<queue name>-poison` on the same account unless given. */
  readonly poison: QueueClient;
  readonly functionName: string;
  readonly handler: QueueHandler;
  /** Receives every line the handler logs. */
  readonly logs?: LogLine[];
  readonly settings?: HostQueueSettings;
  /** Seconds a received message stays invisible while its handler runs (the host's lease). */
  readonly leaseSeconds?: number;
}

/** The message as the trigger hands it to a Node handler: parsed JSON, else the text. */
function payloadOf(text: string, encoding: HostQueueSettings["messageEncoding"]): unknown {
  const decoded = encoding === "base64" ? Buffer.from(text, "base64").toString("utf8") : text;
  try {
    return JSON.parse(decoded);
  } catch {
    return decoded;
  }
}

type Item = Awaited<ReturnType<QueueClient["receiveMessages"]>>["receivedMessageItems"][number];

/** Up to `count` visible messages, leased; none when the queue does not exist yet. */
async function receive(options: HostLoopOptions, count: number): Promise<Item[]> {
  try {
    const received = await options.queue.receiveMessages({
      numberOfMessages: count,
      // The lease while the handler runs (the host's default is 10 min, renewed as it runs).
      visibilityTimeout: options.leaseSeconds ?? 600,
    });
    return received.receivedMessageItems;
  } catch (error) {
    // No queue yet (nothing was ever sent): the host sees an empty queue.
    if ((error as { statusCode?: number }).statusCode === 404) return [];
    throw error;
  }
}

/** Runs the handler on one received message and settles it as the host would. */
async function handle(options: HostLoopOptions, item: Item): Promise<Delivered> {
  const settings = options.settings ?? hostQueueSettings();
  const context = new InvocationContext({
    invocationId: randomUUID(),
    functionName: options.functionName,
    triggerMetadata: {
      id: item.messageId,
      dequeueCount: item.dequeueCount,
      insertionTime: item.insertedOn.toISOString(),
      expirationTime: item.expiresOn.toISOString(),
      popReceipt: item.popReceipt,
    },
    logHandler: (level, ...args) => {
      options.logs?.push({
        level,
        functionName: options.functionName,
        message: args.map(String).join(" "),
      });
    },
  });
  try {
    await options.handler(payloadOf(item.messageText, settings.messageEncoding), context);
  } catch (error) {
    if (item.dequeueCount >= settings.maxDequeueCount) {
      await options.poison.createIfNotExists();
      // The host copies the message text as it was received.
      await options.poison.sendMessage(item.messageText);
      await options.queue.deleteMessage(item.messageId, item.popReceipt);
      return {
        messageId: item.messageId,
        dequeueCount: item.dequeueCount,
        outcome: "poisoned",
        error,
      };
    }
    await options.queue.updateMessage(item.messageId, item.popReceipt, undefined, 0);
    return { messageId: item.messageId, dequeueCount: item.dequeueCount, outcome: "retry", error };
  }
  await options.queue.deleteMessage(item.messageId, item.popReceipt);
  return { messageId: item.messageId, dequeueCount: item.dequeueCount, outcome: "done" };
}

/** Delivers at most one message; undefined when the queue had none visible. */
export async function deliverOne(options: HostLoopOptions): Promise<Delivered | undefined> {
  const [item] = await receive(options, 1);
  return item && handle(options, item);
}

/**
 * The host's loop: batches of batchSize run at once, the next fetched when no more than
 * newBatchThreshold are running. Ends when `stopped()` says so, or (`untilEmpty`) when the queue
 * shows nothing visible and nothing is running; resolves with every delivery, as they ended.
 */
async function pump(
  options: HostLoopOptions,
  stopped: () => boolean,
  untilEmpty: boolean,
): Promise<Delivered[]> {
  const settings = options.settings ?? hostQueueSettings();
  const running = new Set<Promise<void>>();
  const done: Delivered[] = [];
  while (!stopped()) {
    if (running.size > settings.newBatchThreshold) {
      await Promise.race(running);
      continue;
    }
    const items = await receive(options, settings.batchSize);
    if (items.length === 0) {
      if (running.size > 0) await Promise.race(running);
      else if (untilEmpty) break;
      else await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    for (const item of items) {
      const one: Promise<void> = handle(options, item)
        .then((delivered) => {
          done.push(delivered);
        })
        .finally(() => running.delete(one));
      running.add(one);
    }
  }
  await Promise.all(running);
  return done;
}

/** Delivers until the queue has no visible message; resolves with every delivery. */
export function drain(options: HostLoopOptions): Promise<Delivered[]> {
  return pump(options, () => false, true);
}

/** Delivers in the background (polling every 50 ms when idle) until stopped: for ?wait. */
export function listen(options: HostLoopOptions): { stop(): Promise<Delivered[]> } {
  let stopped = false;
  const loop = pump(options, () => stopped, false);
  return {
    async stop() {
      stopped = true;
      return loop;
    },
  };
}
