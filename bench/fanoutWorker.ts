/**
 * One worker process of the fan-out bench (bench/fanoutBench.ts): what one Functions instance
 * does with the queue trigger, run through the host loop the tests use (test/support/hostLoop.ts):
 * host.json's batchSize deliveries at once, each calling the runQueuedRenewals handler, until
 * the parent says stop. Settings come from the environment the parent gives (its accounts,
 * Azurite). Reports what it delivered and its peak RSS.
 */
import { QueueClient } from "@azure/storage-queue";
import { runQueuedRenewals } from "../functions/handlers/runQueuedRenewals.js";
import { RUN_QUEUE } from "../shared/core/runs/run.js";
import { deliverOne, hostQueueSettings } from "../test/support/hostLoop.js";

const connection = process.env.AzureWebJobsStorage ?? "";
const queue = new QueueClient(connection, RUN_QUEUE);
const poison = new QueueClient(connection, `${RUN_QUEUE}-poison`);
const settings = hostQueueSettings(new URL(`file://${process.env.FANOUT_HOST_JSON ?? ""}`));
let stopping = false;
let delivered = 0;
let failed = 0;

process.on("message", (message) => {
  if (message === "stop") stopping = true;
});

async function loop(): Promise<void> {
  while (!stopping) {
    const one = await deliverOne({
      queue,
      poison,
      functionName: "runQueuedRenewals",
      handler: runQueuedRenewals,
      settings,
    }).catch(() => undefined);
    if (one) {
      delivered += 1;
      if (one.outcome !== "done") failed += 1;
    } else await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

await Promise.all(Array.from({ length: Math.max(1, settings.batchSize) }, loop));
// Read before the collection below: it must not lower the peak.
const maxRssBytes = process.resourceUsage().maxRSS * 1024; // maxRSS is in KiB.
// What is kept, not what awaits collection (the parent forks with --expose-gc).
(globalThis as { gc?: () => void }).gc?.();
process.send?.({ delivered, failed, maxRssBytes, liveHeapBytes: process.memoryUsage().heapUsed });
process.exit(0);
