import { inlineRunQueue, storageRunQueue } from "../adapters/queue/storageRunQueue.js";
import { memoryRunStore } from "../adapters/storage/memory/memoryRunStore.js";
import { tableRunStore } from "../adapters/storage/tableRunStore.js";
import type { RunQueue } from "../core/ports/runQueue.js";
import type { RunStore } from "../core/ports/runStore.js";
import { MAX_DEQUEUE_COUNT, type RunMessage } from "../core/runs/run.js";
import type { Logger } from "../lib/log.js";
import { poisonRun } from "../usecases/poisonRun.js";
import { processRun } from "../usecases/processRun.js";
import type { Runtime } from "./services.js";

/** The run store and queue of one runtime. */
export interface Runs {
  readonly store: RunStore;
  readonly queue: RunQueue;
  /**
   * Resolves once every run this process is sweeping for the in-process queue has finished
   * (tests, before the next case); at once with a Storage Queue, whose runs the host sweeps.
   */
  settled(): Promise<void>;
}

/** Seams for tests: a store and queue of their own (a unique table and queue on Azurite). */
export interface RunsOverrides {
  readonly store?: RunStore;
  readonly queue?: RunQueue;
}

const built = new WeakMap<Runtime, Runs>();
let overrides: RunsOverrides = {};

/** Replaces the store and queue the next runtime gets (tests); `{}` restores the defaults. */
export function setRunsOverrides(next: RunsOverrides): void {
  overrides = next;
}

/**
 * The runtime's runs, built on first use. With storage (CERTSCHED_LEDGER_TABLE_URI or
 * AzureWebJobsStorage, beside the ledger; CERTSCHED_QUEUE_URI or the connection string's
 * QueueEndpoint) runs live in the table certschedruns and go through the queue certsched-runs.
 * Without any (tests, the sandbox), both are in this process: the message is delivered here,
 * retried up to MAX_DEQUEUE_COUNT times and then poisoned, as the host would; nothing survives
 * a restart, which is why the deployed app always has storage.
 */
export function runsOf(runtime: Runtime): Runs {
  const existing = built.get(runtime);
  if (existing) return existing;
  const s = runtime.settings;
  const timeoutMs = s.httpTimeoutMs;
  const hasTables = Boolean(s.ledgerTableUri || s.storageConnectionString);
  const hasQueue = Boolean(s.queueUri || s.storageConnectionString);
  const store =
    overrides.store ??
    (hasTables
      ? tableRunStore({
          tableUri: s.ledgerTableUri,
          connectionString: s.storageConnectionString,
          timeoutMs,
        })
      : memoryRunStore());
  const inline =
    overrides.queue || hasQueue
      ? undefined
      : inlineRunQueue((message, log) => deliverHere(runtime, store, message, log));
  const queue =
    overrides.queue ??
    inline ??
    storageRunQueue({
      queueUri: s.queueUri,
      connectionString: s.storageConnectionString,
      timeoutMs,
    });
  const runs: Runs = { store, queue, settled: async () => inline?.settled() };
  built.set(runtime, runs);
  return runs;
}

/** The host's delivery loop, in this process: attempts, then the poison handling. */
async function deliverHere(
  runtime: Runtime,
  store: RunStore,
  message: RunMessage,
  log: Logger,
): Promise<void> {
  for (let dequeueCount = 1; dequeueCount <= MAX_DEQUEUE_COUNT; dequeueCount++) {
    try {
      await processRun(runtime, store, log, message, { dequeueCount });
      return;
    } catch {
      // processRun logged it and noted it on the run; deliver again, as the host would.
    }
  }
  // This runtime's runs: built by now (this delivery came through their queue).
  await poisonRun(() => runsOf(runtime), log, message, runtime.now);
}
