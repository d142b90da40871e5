import { randomUUID } from "node:crypto";
import { TableClient } from "@azure/data-tables";
import { QueueClient, StorageSharedKeyCredential } from "@azure/storage-queue";
import { inject } from "vitest";
import { getRenewalRun } from "../../functions/getRenewalRun.js";
import { poisonedRenewals } from "../../functions/poisonedRenewals.js";
import { runQueuedRenewals } from "../../functions/runQueuedRenewals.js";
import { runRenewals } from "../../functions/runRenewals.js";
import { storageRunQueue } from "../../shared/adapters/queue/storageRunQueue.js";
import { tableLedger } from "../../shared/adapters/storage/tableLedger.js";
import { tableRunStore } from "../../shared/adapters/storage/tableRunStore.js";
import type { Seams } from "../../shared/app/seams.js";
import type { RunStore } from "../../shared/core/ports/runStore.js";
import type { RunView } from "../../shared/edge/views/runView.js";
import { DAY_MS } from "../../shared/lib/time.js";
import {
  type AppHarness,
  type Reply,
  type Settings,
  startHarness,
  uniqueTableName,
} from "./app.js";
import { type Delivered, drain, type HostLoopOptions, listen } from "./hostLoop.js";
import { httpRequest } from "./invoke.js";

// Half a day more, so the whole days left do not change while the test runs.
export const inDays = (days: number) => new Date(Date.now() + (days + 0.5) * DAY_MS);

/**
 * The function app over the simulator and Azurite: its runs in a table and a queue of their own
 * (so test files running side by side never read each other's messages), its ledger too.
 */
export interface RunsWorld {
  readonly app: AppHarness;
  readonly connectionString: string;
  readonly queue: QueueClient;
  readonly poison: QueueClient;
  readonly runsTable: TableClient;
  readonly store: RunStore;
  /** Reconfigures the app (settings, runtime overrides), keeping the same table and queue. */
  configure(extra?: Settings, overrides?: Seams, runs?: Seams["runs"]): Promise<void>;
  post(init?: { query?: Record<string, string>; headers?: Record<string, string> }): Promise<Reply>;
  get(runId: string, headers?: Record<string, string>): Promise<Reply>;
  /** The host loop on the run queue with the real queue trigger, until the queue is empty. */
  drainRuns(): Promise<Delivered[]>;
  /** The host loop on the poison queue with the real poison function. */
  drainPoison(): Promise<Delivered[]>;
  listenRuns(): { stop(): Promise<Delivered[]> };
  hostLoop(queue: "runs" | "poison"): HostLoopOptions;
  /** Every run row and every message still queued, as text: for the no-secret checks. */
  storedTexts(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startRunsWorld(
  certificates = [
    { certificateName: "www-contoso-com", expiryDate: inDays(5) },
    { certificateName: "blog-contoso-com", expiryDate: inDays(45) },
  ],
): Promise<RunsWorld> {
  const connectionString = inject("azuriteTableConnectionString");
  const app = await startHarness({ completionDelayMs: 30 * 60_000, certificates });
  const queueName = `runs-${randomUUID()}`.slice(0, 40);
  const queue = new QueueClient(
    new URL(`${queueName}`, `${endpoint(connectionString, "QueueEndpoint")}/`).href,
    credentialOf(connectionString),
  );
  const poison = new QueueClient(`${queue.url}-poison`, credentialOf(connectionString));
  const tableName = uniqueTableName("runs");
  const store = tableRunStore({ connectionString, tableName });
  const runsTable = TableClient.fromConnectionString(connectionString, tableName, {
    allowInsecureConnection: true,
  });
  const ledger = tableLedger({ connectionString, tableName: uniqueTableName("ledger") });
  const world: RunsWorld = {
    app,
    connectionString,
    queue,
    poison,
    runsTable,
    store,
    async configure(extra = {}, overrides = {}, runs = {}) {
      await app.configure(extra, {
        ledger,
        ...overrides,
        runs: { store, queue: storageRunQueue({ connectionString, queueName }), ...runs },
      });
    },
    post: (init = {}) =>
      app.call(
        runRenewals,
        httpRequest({ path: "renewals", query: init.query ?? {}, headers: init.headers ?? {} }),
      ),
    get: (runId, headers = {}) =>
      app.call(
        getRenewalRun,
        httpRequest({
          method: "GET",
          path: `renewals/${encodeURIComponent(runId)}`,
          params: { runId },
          headers,
        }),
      ),
    hostLoop: (which) => ({
      queue: which === "runs" ? queue : poison,
      poison:
        which === "runs"
          ? poison
          : new QueueClient(`${poison.url}-poison`, credentialOf(connectionString)),
      functionName: which === "runs" ? "runQueuedRenewals" : "poisonedRenewals",
      handler: which === "runs" ? runQueuedRenewals : poisonedRenewals,
      logs: app.logs,
    }),
    drainRuns: () => drain(world.hostLoop("runs")),
    drainPoison: async () => {
      await poison.createIfNotExists();
      return drain(world.hostLoop("poison"));
    },
    listenRuns: () => listen(world.hostLoop("runs")),
    async storedTexts() {
      const texts: string[] = [];
      try {
        for await (const row of runsTable.listEntities()) texts.push(JSON.stringify(row));
      } catch (error) {
        // No table: nothing was ever stored.
        if ((error as { statusCode?: number }).statusCode !== 404) throw error;
      }
      for (const q of [queue, poison]) {
        if (!(await q.exists())) continue;
        const peeked = await q.peekMessages({ numberOfMessages: 32 });
        texts.push(...peeked.peekedMessageItems.map((m) => m.messageText));
      }
      return texts;
    },
    async close() {
      await queue.deleteIfExists();
      await poison.deleteIfExists();
      await app.close();
    },
  };
  await world.configure();
  return world;
}

/** The run a reply carries. */
export const runOf = (reply: Reply) => reply.body as RunView;

function endpoint(connectionString: string, key: string): string {
  const match = new RegExp(`${key}=([^;]+)`).exec(connectionString);
  if (!match?.[1]) throw new Error(`the Azurite connection string has no ${key}`);
  return match[1];
}

function credentialOf(connectionString: string) {
  // QueueClient(url, credential) with the development account's shared key.
  const name = /AccountName=([^;]+)/.exec(connectionString)?.[1] ?? "";
  const key = /AccountKey=([^;]+)/.exec(connectionString)?.[1] ?? "";
  return new StorageSharedKeyCredential(name, key);
}
