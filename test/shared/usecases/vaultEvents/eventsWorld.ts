import { inject } from "vitest";
import { createTableVaultEventStore } from "../../../../shared/adapters/storage/tableVaultEvents.js";
import { getServices } from "../../../../shared/app/services.js";
import { KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import type { CertificateEvent } from "../../../../shared/core/history/events.js";
import { type History, memoryHistory } from "../../../../shared/core/ports/history.js";
import { type Inventory, memoryInventory } from "../../../../shared/core/ports/inventory.js";
import { type Ledger, memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { RecheckMessage, RecheckQueue } from "../../../../shared/core/ports/vaultEvents.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../../../shared/lib/time.js";
import {
  handleVaultEvents,
  type VaultEventOptions,
  type VaultEventsRun,
} from "../../../../shared/usecases/vaultEvents/handleVaultEvents.js";
import { recheckConsumers } from "../../../../shared/usecases/vaultEvents/recheckConsumers.js";
import type { Hosting } from "../../../../sim/index.js";
import {
  type AppHarness,
  collectingLogger,
  startHarness,
  uniqueTableName,
} from "../../../support/app.js";
import { type FakeClock, fakeClock } from "../../../support/clock.js";
import {
  eventGridEvent,
  SAMPLE_RESOURCE_GROUP,
  SAMPLE_SUBSCRIPTION,
  type SampleEventInit,
} from "../../../support/vaultEvents.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

/**
 * One world for a suite of Key Vault events: the simulator's vault and hosting endpoint (over
 * real TLS, through CERTSCHED_VERIFY_CONNECT_TO), the app's services as the function host builds
 * them, the event claims in a table on Azurite, a webhook receiver, and a recording recheck queue. Vault `kv-events` holds:
 * - `kv-www` (www.events.test), which certsched renews: two versions, its consumer at once;
 * - `kv-lag` (lag.events.test), which certsched renews: its consumer 10 min behind each version;
 * - `kv-stray`, in the same vault, that certsched does not know (unmanaged).
 * CERTSCHED_WATCH maps `kv-gone/www-gone` to gone.events.test: a watched vault that cannot be read.
 */

export const VAULT = "kv-events";
export const LAG_MS = 10 * MINUTE_MS;

export interface Sent {
  readonly message: RecheckMessage;
  readonly delayMs: number;
}

export interface EventsWorld {
  readonly app: AppHarness;
  readonly hosting: Hosting;
  readonly clock: FakeClock;
  readonly inventory: Inventory;
  readonly history: History;
  readonly ledger: Ledger;
  readonly receiver: Receiver;
  /** Every recheck the queue was given, in order. */
  readonly sent: Sent[];
  readonly options: VaultEventOptions;
  /** Delivers `input` to the use case; its log lines with it. */
  deliver(
    input: unknown,
  ): Promise<{ run: VaultEventsRun; lines: { level: string; message: string }[] }>;
  recheck(message: RecheckMessage): Promise<{ level: string; message: string }[]>;
  /** The certificate's versions in the vault, oldest first (the last is current). */
  versions(certificate: string): readonly string[];
  /** An Event Grid event of vault kv-events (its subscription and resource group by default). */
  event(init: SampleEventInit): Record<string, unknown>;
  /** The history's vault events (and alerts), oldest first. */
  vaultHistory(): Promise<CertificateEvent[]>;
  close(): Promise<void>;
}

function recordingQueue(sent: Sent[]): RecheckQueue {
  return {
    kind: "inline",
    send: async (message, delayMs) => {
      sent.push({ message, delayMs });
    },
  };
}

export async function startEventsWorld(): Promise<EventsWorld> {
  // Half a second past a whole one: X.509 keeps whole seconds. Real time: TLS checks validity.
  const clock = fakeClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 500).toISOString());
  const t0 = clock.now().getTime();
  const seed = (name: string, domain: string) => ({
    certificateName: name,
    rootDomain: domain,
    target: KEY_VAULT,
    keyVaultName: VAULT,
    expiryDate: new Date(t0 + 20 * DAY_MS),
  });
  const app = await startHarness({
    now: clock.now,
    completionDelayMs: 30 * MINUTE_MS,
    certificates: [
      seed("kv-www", "www.events.test"),
      seed("kv-lag", "lag.events.test"),
      seed("kv-stray", "stray.events.test"),
    ],
    hosting: { vaultLag: { "kv-lag": LAG_MS } },
  });
  const hosting = app.sim.hosting as Hosting;
  for (const name of ["kv-www", "kv-lag"]) {
    hosting.vault.stageVersions(VAULT, name, [
      {
        notBefore: new Date(t0 - 70 * DAY_MS),
        notAfter: new Date(t0 + 20 * DAY_MS),
        created: new Date(t0 - 70 * DAY_MS),
      },
      {
        notBefore: new Date(t0 - HOUR_MS),
        notAfter: new Date(t0 + 89 * DAY_MS),
        created: new Date(t0 - 1000),
      },
    ]);
  }
  const receiver = await startReceiver();
  const inventory = memoryInventory();
  const history = memoryHistory();
  const ledger = memoryLedger();
  const sent: Sent[] = [];
  await app.configure(
    {
      CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook?sig=${"s".repeat(40)}`,
      CERTSCHED_WEBHOOK_FORMAT: "json",
      CERTSCHED_HTTP_TIMEOUT: "5s",
      CERTSCHED_EVENT_RECHECK_FIRST: "30s",
      // A watched vault nothing answers for (its host reaches no vault).
      CERTSCHED_WATCH: "kv-gone/www-gone=gone.events.test",
    },
    {
      now: clock.now,
      inventory,
      history,
      ledger,
      recheckQueue: recordingQueue(sent),
      // The claims on Azurite, as production keeps them (a table of this world's own).
      vaultEvents: createTableVaultEventStore({
        connectionString: inject("azuriteTableConnectionString"),
        tableName: uniqueTableName("ve"),
        timeoutMs: 5_000,
      }),
    },
  );
  app.addSecrets("s".repeat(40));
  await inventory.upsert(
    ["kv-www", "kv-lag"].map((name) => ({
      certificateName: name,
      rootDomain: `${name.slice(3)}.events.test`,
      target: KEY_VAULT,
      keyVaultName: VAULT,
      cloudSubscriptionId: SAMPLE_SUBSCRIPTION,
      source: "created" as const,
      seenAt: clock.now(),
    })),
  );
  const options: VaultEventOptions = {
    ca: [hosting.caPem],
    keyVault: { clientOptions: { tlsOptions: { ca: hosting.caPem } } },
  };
  return {
    app,
    hosting,
    clock,
    inventory,
    history,
    ledger,
    receiver,
    sent,
    options,
    deliver: async (input) => {
      const { log, lines } = collectingLogger();
      const run = await handleVaultEvents(getServices(), input, log, options);
      return { run, lines };
    },
    recheck: async (message) => {
      const { log, lines } = collectingLogger();
      await recheckConsumers(getServices(), message, log, options);
      return lines;
    },
    versions: (certificate) => hosting.vault.versions(VAULT, certificate).map((v) => v.version),
    event: (init) =>
      eventGridEvent({
        vaultName: VAULT,
        subscriptionId: SAMPLE_SUBSCRIPTION,
        resourceGroup: SAMPLE_RESOURCE_GROUP,
        ...init,
      }),
    vaultHistory: async () => {
      const { items } = await history.events({ since: new Date(0), limit: 1000 });
      return items
        .filter((e) => e.event === "vault-event" || e.event === "vault-expiry-alert")
        .reverse();
    },
    close: async () => {
      await app.close();
      await receiver.close();
    },
  };
}
