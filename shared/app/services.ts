import { settingsOf } from "../core/accounts.js";
import type { RecheckMessage } from "../core/ports/vaultEvents.js";
import { MAX_DEQUEUE_COUNT, type RunMessage } from "../core/runs/run.js";
import type { Env, Settings } from "../core/settings.js";
import { ConfigError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { registerSecret } from "../lib/redact/redact.js";
import { type AccountServices, createAccountServices, DEFAULT_ACCOUNT } from "./accountServices.js";
import { type AppServices, createAppServices } from "./appServices.js";
import { loadSettings } from "./config/settings.js";
import type { Seams } from "./seams.js";

/**
 * The composition root (docs/design/floor-plan.md): the one place that builds adapters and
 * hands them to use cases. App services are built once per process; account services once per
 * account, on first use (the accounts the settings declare, or the one they describe).
 */
export interface Services {
  readonly app: AppServices;
  /** Every account's name, in declaration order ("default" alone without declared accounts). */
  readonly accounts: readonly string[];
  /**
   * The account's services; no id: the first account. An unknown id is a ConfigError naming
   * the known ones.
   */
  account(id?: string): AccountServices;
  /** The app's ports with one account's: what a handler or a command gives its use case. */
  forAccount(id?: string): AccountPorts;
  close(): Promise<void>;
}

/**
 * The app's ports and one account's, as one object: every use case takes the narrow ports it
 * needs (its `…Ports` interface), which this satisfies. No port comes from both: the notifier is
 * the account's (the app's, naming the account in every message), and `close` closes the whole
 * composition.
 */
export type AccountPorts = Omit<AppServices, "close" | "notifier"> &
  Omit<AccountServices, "close"> & {
    close(): Promise<void>;
  };

/** The ConfigError of an account name the deployment does not declare. */
export function unknownAccount(id: string, known: readonly string[]): ConfigError {
  return new ConfigError([
    {
      name: "account",
      message: `'${id}' is unknown: the accounts are ${known.map((k) => `'${k}'`).join(", ")}`,
    },
  ]);
}

/**
 * Accounts whose services one process keeps built at once. A worker may sweep parts of hundreds
 * of accounts over a day; each built account holds its clients, caches and table clients, so
 * the least recently used is let go beyond this (closed, built again on its next use: its token
 * cache and secrets are read again then). Memory stays flat whatever the number of accounts.
 */
export const MAX_BUILT_ACCOUNTS = 32;

export function createServices(settings: Settings, seams: Seams = {}): Services {
  const names = settings.accounts.map((a) => a.name);
  // Every account's secrets are redacted from the start, in every account's output: one
  // account's upstream may echo anything, and another's key must not get through.
  for (const a of settings.accounts) {
    registerSecret(a.apiKey);
    registerSecret(a.clientSecret);
  }
  // The app and the services exist by the time a message is delivered.
  const deliver = runDelivery(
    settings.accountConcurrency,
    () => app,
    () => services,
  );
  // A recheck of the in-process queue runs here, as the host's queue trigger would; the use
  // case is imported on first delivery.
  const rechecks = async (message: RecheckMessage, log: Logger) =>
    (await import("../usecases/vaultEvents/recheckConsumers.js")).recheckConsumers(
      services,
      message,
      log,
    );
  const app = createAppServices(settings, seams, { runs: deliver, rechecks });
  const views = new Map<string, AccountPorts>();
  const built = accountCache(settings, names, app, seams, (id) => views.delete(id));
  const services = servicesOf(app, names, built, views);
  return services;
}

/**
 * The in-process run queue sweeps here, as the host's queue trigger would: attempts, then
 * the poison handling, each run with its own account's runtime (the run decides, not the
 * message). At most `accountConcurrency` at once, as instances of the trigger would. Imported
 * on first delivery: a handler that never sweeps a run does not load the sweep.
 */
function runDelivery(
  accountConcurrency: number,
  app: () => AppServices,
  services: () => Services,
): (message: RunMessage, log: Logger) => Promise<void> {
  const slots = semaphore(accountConcurrency);
  return async (message, log) => {
    const [{ processRun }, { poisonRun }] = await Promise.all([
      import("../usecases/processRun.js"),
      import("../usecases/poisonRun.js"),
    ]);
    const portsOf = (account: string | undefined) => services().forAccount(account);
    await slots(async () => {
      for (let dequeueCount = 1; dequeueCount <= MAX_DEQUEUE_COUNT; dequeueCount++) {
        try {
          await processRun(portsOf, app().runs.store, log, message, { dequeueCount });
          return;
        } catch {
          // processRun logged it and noted it on the run; deliver again, as the host would.
        }
      }
      await poisonRun(() => app().runs, log, message, app().now);
    });
  };
}

/** The accounts' services built so far, at most MAX_BUILT_ACCOUNTS of them. */
interface AccountCache {
  /** The account's services, built on first use; an undeclared id is a ConfigError. */
  account(id?: string): AccountServices;
  /** Closes every account built, and waits for those let go to be closed. */
  close(): Promise<void>;
}

/**
 * Builds each account's services on first use and keeps the most recently used; beyond
 * MAX_BUILT_ACCOUNTS the least recently used is let go (`forget` is told its name) and closed.
 */
function accountCache(
  settings: Settings,
  names: readonly string[],
  app: AppServices,
  seams: Seams,
  forget: (account: string) => void,
): AccountCache {
  const accounts = new Map<string, AccountServices>();
  // Closing of accounts let go, awaited by close() so nothing counted is lost at exit.
  const letGo = new Set<Promise<void>>();
  const account = (id: string = settings.accounts[0]?.name ?? DEFAULT_ACCOUNT): AccountServices => {
    let built = accounts.get(id);
    if (built) {
      // Most recently used last: the map's order is the eviction order.
      accounts.delete(id);
      accounts.set(id, built);
      return built;
    }
    const declared = settings.accounts.find((a) => a.name === id);
    if (!declared) throw unknownAccount(id, names);
    built = createAccountServices(id, settingsOf(settings, declared), app, seams);
    accounts.set(id, built);
    while (accounts.size > MAX_BUILT_ACCOUNTS) {
      const [oldest, dropped] = accounts.entries().next().value as [string, AccountServices];
      accounts.delete(oldest);
      forget(oldest);
      // A sweep still holding it goes on with it; only this cache forgets it.
      const closing = dropped.close().catch(() => {});
      letGo.add(closing);
      void closing.finally(() => letGo.delete(closing));
    }
    return built;
  };
  const close = async (): Promise<void> => {
    await Promise.all([...accounts.values()].map((a) => a.close()));
    await Promise.all(letGo);
  };
  return { account, close };
}

/** The services object: the app's, each account's, and the ports of each account. */
function servicesOf(
  app: AppServices,
  names: readonly string[],
  built: AccountCache,
  views: Map<string, AccountPorts>,
): Services {
  const { account } = built;
  const close = async (): Promise<void> => {
    await built.close();
    await app.close();
  };
  return {
    app,
    accounts: names,
    account,
    forAccount: (id) => {
      const one = account(id);
      let view = views.get(one.account);
      if (!view) {
        view = accountPorts(app, one, close);
        views.set(one.account, view);
      }
      return view;
    },
    close,
  };
}

/**
 * The app's ports with one account's. Each is named once: the app's notifier stays the app's
 * (the account's own wraps it), and the account's `close` gives way to the composition's.
 */
function accountPorts(
  app: AppServices,
  one: AccountServices,
  close: () => Promise<void>,
): AccountPorts {
  const { now, http, runs, telemetry, ari, onCall, renewalTimer, transparency, openWatcher } = app;
  const { vaultEvents, recheckQueue, estate } = app;
  const { account, settings, ledger, history, inventory, secrets, tokens, client } = one;
  const { requests, probes, notifier, concurrency, preflightProbes, estateReaders } = one;
  // biome-ignore format: the app's ports, then the account's, a line each
  return {
    now, http, runs, telemetry, ari, onCall, renewalTimer, transparency, openWatcher,
    vaultEvents, recheckQueue, estate,
    account, settings, ledger, history, inventory, secrets, tokens, client,
    requests, probes, notifier, concurrency, preflightProbes, estateReaders, close,
  };
}

/** The app's ports and the first account's, built from `settings` (tests, the CLI, tools). */
export function createAccountPorts(settings: Settings, seams: Seams = {}): AccountPorts {
  return createServices(settings, seams).forAccount();
}

let current: Services | undefined;
let currentSeams: Seams = {};

/**
 * The process-wide services' ports for one account, built on first use (not at import: cold start stays
 * cheap, and a settings problem surfaces as a clear error from the first call, not a crash at
 * load).
 */
export function getAccountPorts(env?: Env, account?: string): AccountPorts {
  return getServices(env).forAccount(account);
}

/** The process-wide services, built on first use (see getAccountPorts). */
export function getServices(env?: Env): Services {
  current ??= createServices(loadSettings(env), currentSeams);
  return current;
}

/** Drops the process-wide services so the next call rebuilds them (tests, settings reload). */
export async function resetServices(seams: Seams = {}): Promise<void> {
  const old = current;
  current = undefined;
  currentSeams = seams;
  await old?.close();
}

/** Runs at most `limit` of the given tasks at once, the others waiting their turn in order. */
function semaphore(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= Math.max(1, limit)) await new Promise<void>((go) => waiting.push(go));
    else running += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}
