import { QueueClient, StorageSharedKeyCredential } from "@azure/storage-queue";
import { runQueuedRenewals } from "../../functions/runQueuedRenewals.js";
import { storageRunQueue } from "../../shared/adapters/queue/storageRunQueue.js";
import { tableRunStore } from "../../shared/adapters/storage/tableRunStore.js";
import { resetServices } from "../../shared/app/services.js";
import type { LogLine } from "./app.js";
import { listen } from "./hostLoop.js";

/**
 * A worker process for the kill -9 test (test/reliability/fanOutKill.test.ts): the host loop over
 * the Azurite run queue with the real queue trigger, as one Functions instance would run it.
 * Bundled by hostWorkerProcess.ts and started with its settings in HOST_WORKER (JSON): the
 * app's environment, the queue and the runs table. Writes one JSON line per delivery to stdout,
 * and every line the handlers log.
 */

interface WorkerConfig {
  readonly env: Record<string, string>;
  readonly connectionString: string;
  readonly queueName: string;
  readonly runsTableName: string;
  readonly leaseSeconds: number;
}

const config = JSON.parse(process.env.HOST_WORKER ?? "{}") as WorkerConfig;
for (const [key, value] of Object.entries(config.env)) process.env[key] = value;

const match = (key: string) =>
  new RegExp(`${key}=([^;]+)`).exec(config.connectionString)?.[1] ?? "";
const credential = new StorageSharedKeyCredential(match("AccountName"), match("AccountKey"));
const queue = new QueueClient(`${match("QueueEndpoint")}/${config.queueName}`, credential);
const poison = new QueueClient(`${queue.url}-poison`, credential);

await resetServices({
  runs: {
    store: tableRunStore({
      connectionString: config.connectionString,
      tableName: config.runsTableName,
    }),
    queue: storageRunQueue({
      connectionString: config.connectionString,
      queueName: config.queueName,
    }),
  },
});

const logs: LogLine[] = new Proxy([], {
  get(target, property, receiver) {
    if (property === "push") {
      return (...lines: LogLine[]) => {
        for (const line of lines) process.stdout.write(`${JSON.stringify({ log: line })}\n`);
        return 0;
      };
    }
    return Reflect.get(target, property, receiver);
  },
});

listen({
  queue,
  poison,
  functionName: "runQueuedRenewals",
  handler: async (message, context) => {
    process.stdout.write(`${JSON.stringify({ start: message })}\n`);
    await runQueuedRenewals(message, context);
  },
  logs,
  leaseSeconds: config.leaseSeconds,
});
process.stdout.write(`${JSON.stringify({ ready: process.pid })}\n`);
