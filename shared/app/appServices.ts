import { noTransparencyStore } from "../adapters/storage/memory/memoryTransparency.js";
import { nextRun } from "../core/dashboard/dashboardModel.js";
import type { Ari } from "../core/ports/ari.js";
import type { EstateStore } from "../core/ports/estate.js";
import { type Notifier, noNotifier } from "../core/ports/notifier.js";
import { noTelemetry, type Telemetry } from "../core/ports/telemetry.js";
import type { LogWatcher, TransparencyStore } from "../core/ports/transparency.js";
import type { RecheckMessage, RecheckQueue, VaultEventStore } from "../core/ports/vaultEvents.js";
import { nextOccurrence, parseSchedule } from "../core/schedule/ncrontab.js";
import type { Settings } from "../core/settings.js";
import { HttpClient } from "../lib/http/httpClient.js";
import { LoadOnce } from "../lib/loadOnce.js";
import type { Logger } from "../lib/log.js";
import { type PlatformEnv, platformEnv } from "./config/platform.js";
import { notifierOnFirstUse } from "./lazyAdapters.js";
import { memoryEstateOnFirstUse, tableEstateOnFirstUse } from "./lazyEstate.js";
import { logWatcherOnFirstUse, tableTransparencyOnFirstUse } from "./lazyTransparency.js";
import {
  type InlineRecheck,
  inlineRecheckQueueOnFirstSend,
  memoryVaultEventsOnFirstUse,
  storageRecheckQueueOnFirstUse,
  tableVaultEventsOnFirstUse,
} from "./lazyVaultEvents.js";
import { buildRuns, type Runs, type RunsSeams } from "./runs.js";
import type { OnCall, Seams } from "./seams.js";

/**
 * What the whole deployment shares, built once per process: the clock, the outbound transport,
 * the runs (a run spans accounts), the notifier and the telemetry. Each account's ledger,
 * history and inventory are its own (accountServices.ts).
 */
export interface AppServices {
  readonly now: () => Date;
  /** The transport: one pool, one timeout, every call observed (telemetry, the bench). */
  readonly http: HttpClient;
  /** The run store and queue of POST /api/renewals. */
  readonly runs: Runs;
  /** Posts sweep messages to CERTSCHED_WEBHOOK_URL; does nothing when it is unset. */
  readonly notifier: Notifier;
  /**
   * The telemetry, built on first call: OpenTelemetry to Application Insights when
   * APPLICATIONINSIGHTS_CONNECTION_STRING is set (imported only then), else a no-op. Rejects
   * when it cannot start; the next call tries again.
   */
  telemetry(): Promise<Telemetry>;
  /**
   * The CAs' renewal information (ARI), one client for every account (ARI is per CA):
   * built on first ask from settings.ari(), which the caller has read first.
   */
  readonly ari: Ari;
  /** Observer of each outbound call (telemetry and the seams'); undefined when none listens. */
  readonly onCall: OnCall | undefined;
  /**
   * The renewal timer's next firing after a moment (CERTSCHED_RENEWAL_SCHEDULE, in UTC), for the
   * renewal calendar's last safe sweep; undefined when unset or not readable here.
   */
  readonly renewalTimer?: RenewalTimer | undefined;
  /**
   * What the Certificate Transparency watch keeps (cursors, issuances, the API's allowance), for
   * every account: one table in the app's storage; "none" without storage.
   */
  readonly transparency: TransparencyStore;
  /** The Certificate Transparency log watcher (CERTSCHED_CT_URL), asking with this key. */
  openWatcher(apiKey: () => Promise<string | undefined>): LogWatcher;
  /**
   * What the Key Vault events did, for every account (each event's work once): the table
   * certschedvaultevents in the app's storage, else in this process.
   */
  readonly vaultEvents: VaultEventStore;
  /**
   * Each account's last estate (core/estate/kept.ts): the table certschedestate in the app's
   * storage, else in this process.
   */
  readonly estate: EstateStore;
  /**
   * The later checks of a vault certificate's consumers: the Storage Queue
   * certsched-vault-rechecks when the app has a queue (as the runs' queue), else timers in this
   * process; `settled` (in process only) resolves once every message sent has been delivered.
   */
  readonly recheckQueue: RecheckQueue & { settled?(): Promise<void> };
  close(): Promise<void>;
}

/**
 * How messages of the queues kept in this process (no storage queue configured) are delivered,
 * as the host's queue triggers would: the composition root wires them to the use cases.
 */
export interface AppDelivery {
  /** Sweeps one run (the run queue's message). */
  readonly runs: RunsSeams["deliver"];
  /** Checks a vault certificate's consumers again (the recheck queue's message). */
  readonly rechecks: (message: RecheckMessage, log: Logger) => Promise<void>;
}

/** When the renewal timer fires next after a moment; undefined: never. */
export type RenewalTimer = (after: Date) => Date | undefined;

/**
 * The renewal timer as the host runs it (CERTSCHED_RENEWAL_SCHEDULE), or undefined when it is
 * unset, unreadable, or run in a WEBSITE_TIME_ZONE other than UTC (not converted here): the
 * calendar then renews outside the windows as soon as waiting is unsafe, never later.
 */
export function renewalTimerOf(platform: PlatformEnv): RenewalTimer | undefined {
  const text = platform.CERTSCHED_RENEWAL_SCHEDULE;
  if (text === undefined || text.trim() === "") return undefined;
  if (nextRun(text, new Date(0), platform.WEBSITE_TIME_ZONE).kind === "invalid") return undefined;
  const parsed = parseSchedule(text);
  if (!parsed.ok) return undefined;
  return (after) => nextOccurrence(parsed.schedule, after);
}

/** Loads the telemetry the settings ask for; the SDK is imported here, never at module load. */
async function loadTelemetry(settings: Settings, seams: Seams, now: () => Date) {
  if (seams.telemetry) return seams.telemetry;
  const connectionString = settings.appInsightsConnectionString;
  if (!connectionString) return noTelemetry;
  const { startAzureMonitor } = await import("../adapters/telemetry/azureMonitor.js");
  return startAzureMonitor(connectionString, now);
}

/** Where the app's tables live, when it has any (CERTSCHED_LEDGER_TABLE_URI, AzureWebJobsStorage). */
export function tableLocationOf(settings: Settings) {
  return settings.ledgerTableUri || settings.storageConnectionString
    ? {
        tableUri: settings.ledgerTableUri,
        connectionString: settings.storageConnectionString,
        timeoutMs: settings.httpTimeoutMs,
      }
    : undefined;
}

/** The Certificate Transparency store: the seams', else one table in the app's storage. */
function transparencyOf(settings: Settings, seams: Seams): TransparencyStore {
  if (seams.transparency) return seams.transparency;
  const storage = tableLocationOf(settings);
  return storage ? tableTransparencyOnFirstUse(storage) : noTransparencyStore;
}

/** The ARI client (its DER and certificate-id code), loaded with the first question. */
function ariOf(settings: Settings, seams: Seams, now: () => Date, onCall: OnCall | undefined) {
  const ariClient = new LoadOnce(async () =>
    (await import("../adapters/ari/ariClient.js")).createAriClient({
      ...settings.ari(),
      now,
      ...(seams.ariCa ? { ca: seams.ariCa } : {}),
      ...(onCall ? { onCall } : {}),
    }),
  );
  const ari: Ari = {
    ask: async (question) =>
      (await ariClient.get()).renewalInfo({
        certificate: { certId: question.certId },
        issuer: question.issuer,
      }),
  };
  return { ari, ariClient };
}

/** The estate store: the seams', else one table in the app's storage, else in process. */
function estateOf(settings: Settings, seams: Seams): EstateStore {
  if (seams.estate) return seams.estate;
  const storage = tableLocationOf(settings);
  return storage ? tableEstateOnFirstUse(storage) : memoryEstateOnFirstUse();
}

/** The vault events store: the seams', else one table in the app's storage, else in process. */
function vaultEventsOf(settings: Settings, seams: Seams): VaultEventStore {
  if (seams.vaultEvents) return seams.vaultEvents;
  const storage = tableLocationOf(settings);
  return storage ? tableVaultEventsOnFirstUse(storage) : memoryVaultEventsOnFirstUse();
}

/**
 * The recheck queue: the seams', else the Storage Queue when the app has one
 * (CERTSCHED_QUEUE_URI or AzureWebJobsStorage, as the runs' queue), else timers in process
 * delivering to `deliver` (returned apart, so that closing the app drops what still waits).
 */
function recheckQueueOf(
  settings: Settings,
  seams: Seams,
  deliver: AppDelivery["rechecks"],
): { queue: AppServices["recheckQueue"]; inline?: InlineRecheck } {
  if (seams.recheckQueue) return { queue: seams.recheckQueue };
  if (settings.queueUri || settings.storageConnectionString) {
    const queue = storageRecheckQueueOnFirstUse({
      queueUri: settings.queueUri,
      connectionString: settings.storageConnectionString,
      timeoutMs: settings.httpTimeoutMs,
    });
    return { queue };
  }
  const inline = inlineRecheckQueueOnFirstSend(deliver);
  return { queue: inline, inline };
}

/**
 * Builds the app's services from the app-wide settings. `deliver` is how the in-process queues
 * (no storage queue configured) deliver a message: the composition root wires it to the use
 * cases once the account exists.
 */
export function createAppServices(
  settings: Settings,
  seams: Seams,
  deliver: AppDelivery,
  platform: PlatformEnv = platformEnv(),
): AppServices {
  const now = seams.now ?? (() => new Date());
  const started = new LoadOnce(() => loadTelemetry(settings, seams, now));
  const telemetry = (): Promise<Telemetry> => started.get();
  const telemetryOn =
    seams.telemetry !== undefined || settings.appInsightsConnectionString !== undefined;
  // The first recorded call loads the telemetry; a call that cannot be recorded is dropped.
  const recordCall: OnCall = (upstream, durationMs, status) => {
    telemetry()
      .then((t) => t.recordCall(upstream, durationMs, status))
      .catch(() => {});
  };
  const onCall: OnCall | undefined =
    telemetryOn || seams.onCall
      ? (upstream, durationMs, status) => {
          seams.onCall?.(upstream, durationMs, status);
          if (telemetryOn) recordCall(upstream, durationMs, status);
        }
      : undefined;
  const http = new HttpClient({
    timeoutMs: settings.httpTimeoutMs,
    now: () => now().getTime(),
    ...(onCall ? { onCall } : {}),
  });
  const notifier = settings.webhookUrl
    ? notifierOnFirstUse({
        url: settings.webhookUrl,
        format: settings.webhookFormat,
        notifySuccess: settings.notifySuccess,
        namedAccounts: settings.accountsDeclared,
        ...(onCall ? { onCall } : {}),
      })
    : noNotifier;
  const runs = buildRuns(settings, { ...(seams.runs ?? {}), deliver: deliver.runs });
  const rechecks = recheckQueueOf(settings, seams, deliver.rechecks);
  const { ari, ariClient } = ariOf(settings, seams, now, onCall);
  return {
    now,
    http,
    runs,
    notifier,
    telemetry,
    ari,
    onCall,
    renewalTimer: renewalTimerOf(platform),
    transparency: transparencyOf(settings, seams),
    openWatcher: (apiKey) =>
      logWatcherOnFirstUse(
        { settings: settings.transparency, now, onCall, ca: seams.ctCa },
        apiKey,
      ),
    vaultEvents: vaultEventsOf(settings, seams),
    estate: estateOf(settings, seams),
    recheckQueue: rechecks.queue,
    close: async () => {
      const ariOpen = await ariClient.begun()?.catch(() => undefined);
      await rechecks.inline?.close();
      await Promise.all([http.close(), notifier.close(), ariOpen?.close()]);
    },
  };
}
