import { randomUUID } from "node:crypto";
import { TableClient } from "@azure/data-tables";
import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { QueueClient, StorageSharedKeyCredential } from "@azure/storage-queue";
import { inject } from "vitest";
import { getRenewalRun } from "../../functions/getRenewalRun.js";
import { poisonedRenewals } from "../../functions/poisonedRenewals.js";
import { renewDueCertificates } from "../../functions/renewDueCertificates.js";
import { runQueuedRenewals } from "../../functions/runQueuedRenewals.js";
import { runRenewals } from "../../functions/runRenewals.js";
import { storageRunQueue } from "../../shared/adapters/queue/storageRunQueue.js";
import { tableLedger } from "../../shared/adapters/storage/tableLedger.js";
import { tableRunStore } from "../../shared/adapters/storage/tableRunStore.js";
import type { Seams } from "../../shared/app/seams.js";
import { resetServices } from "../../shared/app/services.js";
import type { RunStore } from "../../shared/core/ports/runStore.js";
import type { RunView } from "../../shared/edge/views/runView.js";
import { DAY_MS } from "../../shared/lib/time.js";
import type { SimulatorOptions } from "../../sim/index.js";
import { type SimAccounts, startSimAccounts } from "./accounts.js";
import {
  type AppHarness,
  EnvSnapshot,
  type LogLine,
  type Reply,
  type Settings,
  startHarness,
  uniqueTableName,
} from "./app.js";
import { type Delivered, drain, type HostLoopOptions, listen } from "./hostLoop.js";
import { httpRequest, invocationContext, timer } from "./invoke.js";
import { toReply } from "./reply.js";

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

/**
 * The function app over many accounts: one simulator per account (its own
 * credentials), the accounts declared in CERTSCHED_ACCOUNTS, each account's ledger, history and
 * inventory in Azurite tables of its own (AzureWebJobsStorage), the runs in a table and a queue
 * of this world's own. Account names carry a random tag, so test files running side by side
 * never share an account's tables.
 */
export interface FanOutWorld {
  readonly accounts: SimAccounts;
  readonly names: readonly string[];
  readonly store: RunStore;
  readonly queue: QueueClient;
  readonly poison: QueueClient;
  readonly connectionString: string;
  readonly queueName: string;
  readonly runsTableName: string;
  readonly logs: LogLine[];
  readonly bodies: string[];
  /**
   * Points the app at the accounts: `declare` changes the declarations (e.g. a quota, an
   * account left out), `extra` adds settings.
   */
  configure(
    extra?: Settings,
    declare?: (declarations: Record<string, unknown>[]) => Record<string, unknown>[],
  ): Promise<void>;
  post(init?: { query?: Record<string, string>; headers?: Record<string, string> }): Promise<Reply>;
  get(runId: string): Promise<Reply>;
  /** The timer trigger, as the host calls it. */
  timer(): Promise<void>;
  hostLoop(queue: "runs" | "poison"): HostLoopOptions;
  drainRuns(): Promise<Delivered[]>;
  drainPoison(): Promise<Delivered[]>;
  /** Every account's secrets found in the logs, the bodies, the run rows or the queues. */
  leaks(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startFanOutWorld(
  count: number,
  certificates: (name: string, index: number) => SimulatorOptions["certificates"],
  simOptions: (name: string, index: number) => SimulatorOptions = () => ({}),
): Promise<FanOutWorld> {
  const connectionString = inject("azuriteTableConnectionString");
  const tag = randomUUID().slice(0, 6);
  const names = Array.from({ length: count }, (_, i) => `f${tag}-${i + 1}`);
  const accounts = await startSimAccounts(names, (name, index) => ({
    completionDelayMs: 30 * 60_000,
    certificates: certificates(name, index) ?? [],
    ...simOptions(name, index),
  }));
  const queueName = `fan-${randomUUID()}`.slice(0, 40);
  const queue = new QueueClient(
    new URL(`${queueName}`, `${endpoint(connectionString, "QueueEndpoint")}/`).href,
    credentialOf(connectionString),
  );
  const poison = new QueueClient(`${queue.url}-poison`, credentialOf(connectionString));
  const runsTableName = uniqueTableName("fanruns");
  const store = tableRunStore({ connectionString, tableName: runsTableName });
  const logs: LogLine[] = [];
  const bodies: string[] = [];
  const env = new EnvSnapshot();
  const context = (functionName: string) =>
    invocationContext(functionName, (level, message) => {
      logs.push({ level, functionName, message });
    });
  const call = async (
    handler: (r: HttpRequest, c: InvocationContext) => Promise<HttpResponseInit>,
    request: HttpRequest,
  ) => {
    const reply = toReply(await handler(request, context(handler.name)));
    bodies.push(reply.text);
    return reply;
  };
  const world: FanOutWorld = {
    accounts,
    names,
    store,
    queue,
    poison,
    connectionString,
    queueName,
    runsTableName,
    logs,
    bodies,
    async configure(extra = {}, declare = (d) => d) {
      env.replace({
        CERTSCHED_ACCOUNTS: JSON.stringify(declare(accounts.declarations())),
        AzureWebJobsStorage: connectionString,
        ...extra,
      });
      await resetServices({
        runs: { store, queue: storageRunQueue({ connectionString, queueName }) },
      });
    },
    post: (init = {}) =>
      call(
        runRenewals,
        httpRequest({ path: "renewals", query: init.query ?? {}, headers: init.headers ?? {} }),
      ),
    get: (runId) =>
      call(
        getRenewalRun,
        httpRequest({
          method: "GET",
          path: `renewals/${encodeURIComponent(runId)}`,
          params: { runId },
        }),
      ),
    timer: () => renewDueCertificates(timer(), context("renewDueCertificates")),
    hostLoop: (which) => ({
      queue: which === "runs" ? queue : poison,
      poison:
        which === "runs"
          ? poison
          : new QueueClient(`${poison.url}-poison`, credentialOf(connectionString)),
      functionName: which === "runs" ? "runQueuedRenewals" : "poisonedRenewals",
      handler: which === "runs" ? runQueuedRenewals : poisonedRenewals,
      logs,
    }),
    drainRuns: () => drain(world.hostLoop("runs")),
    drainPoison: async () => {
      await poison.createIfNotExists();
      return drain(world.hostLoop("poison"));
    },
    async leaks() {
      const texts = [...logs.map((l) => l.message), ...bodies];
      const rows = TableClient.fromConnectionString(connectionString, runsTableName, {
        allowInsecureConnection: true,
      });
      try {
        for await (const row of rows.listEntities()) texts.push(JSON.stringify(row));
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode !== 404) throw error;
      }
      for (const q of [queue, poison]) {
        if (!(await q.exists())) continue;
        const peeked = await q.peekMessages({ numberOfMessages: 32 });
        texts.push(...peeked.peekedMessageItems.map((m) => m.messageText));
      }
      return accounts.secrets().filter((secret) => texts.some((t) => t.includes(secret)));
    },
    async close() {
      env.restore();
      await resetServices();
      await queue.deleteIfExists();
      await poison.deleteIfExists();
      await accounts.close();
    },
  };
  await world.configure();
  return world;
}
