import type { RunQueue } from "../core/ports/runQueue.js";
import type { RunStore } from "../core/ports/runStore.js";
import type { RunMessage } from "../core/runs/run.js";
import type { Settings } from "../core/settings.js";
import type { Logger } from "../lib/log.js";
import {
  inlineRunQueueOnFirstSend,
  memoryRunStoreOnFirstUse,
  storageRunQueueOnFirstUse,
  tableRunStoreOnFirstUse,
} from "./lazyAdapters.js";

/** The app's run store and queue. */
export interface Runs {
  readonly store: RunStore;
  readonly queue: RunQueue;
  /**
   * Resolves once every run this process is sweeping for the in-process queue has finished
   * (tests, before the next case); at once with a Storage Queue, whose runs the host sweeps.
   */
  settled(): Promise<void>;
}

export interface RunsSeams {
  readonly store?: RunStore | undefined;
  readonly queue?: RunQueue | undefined;
  /** Sweeps one message of the in-process queue, as the host's queue trigger would. */
  readonly deliver: (message: RunMessage, log: Logger) => Promise<void>;
}

/**
 * The app's runs. With storage (CERTSCHED_LEDGER_TABLE_URI or AzureWebJobsStorage, beside the
 * ledger; CERTSCHED_QUEUE_URI or the connection string's QueueEndpoint) runs live in the table
 * certschedruns and go through the queue certsched-runs. Without any (tests, the sandbox), both
 * are in this process: the message is given to `deliver` here, as the host would; nothing
 * survives a restart, which is why the deployed app always has storage.
 */
export function buildRuns(s: Settings, seams: RunsSeams): Runs {
  const timeoutMs = s.httpTimeoutMs;
  const hasTables = Boolean(s.ledgerTableUri || s.storageConnectionString);
  const hasQueue = Boolean(s.queueUri || s.storageConnectionString);
  const store =
    seams.store ??
    (hasTables
      ? tableRunStoreOnFirstUse({
          tableUri: s.ledgerTableUri,
          connectionString: s.storageConnectionString,
          timeoutMs,
        })
      : memoryRunStoreOnFirstUse());
  const inline =
    seams.queue || hasQueue
      ? undefined
      : inlineRunQueueOnFirstSend((message, log) => seams.deliver(message, log));
  const queue =
    seams.queue ??
    inline ??
    storageRunQueueOnFirstUse({
      queueUri: s.queueUri,
      connectionString: s.storageConnectionString,
      timeoutMs,
    });
  return { store, queue, settled: async () => inline?.settled() };
}
