import { randomUUID } from "node:crypto";
import type { Trigger } from "../core/history/events.js";
import type { History } from "../core/ports/history.js";
import type { Inventory } from "../core/ports/inventory.js";
import type { Notifier } from "../core/ports/notifier.js";
import type { SecretStore } from "../core/ports/secrets.js";
import type { LogWatcher, TransparencyStore } from "../core/ports/transparency.js";
import type { Settings } from "../core/settings.js";
import { classify, rejudge } from "../core/transparency/classify.js";
import type { SeenIssuance, WatchedName } from "../core/transparency/issuance.js";
import { knownCertificatesOf, sentRequestsOf } from "../core/transparency/knownCertificates.js";
import type { TransparencySettings } from "../core/transparency/transparencySettings.js";
import { watchedNames } from "../core/transparency/watchedNames.js";
import type { Logger } from "../lib/log.js";
import { DAY_MS } from "../lib/time.js";
import { announceUnexpected } from "./transparency/announce.js";
import { askAllNames } from "./transparency/askAll.js";

/**
 * The Certificate Transparency watch of one account: which names to ask about, what the log
 * watcher reports after each name's cursor, which of those certsched explains, and one message
 * for each it does not. Stages:
 *   1. the settings and the names (the inventory's and the declared ones);
 *   2. what certsched knows: certificates read and requests sent (inventory and history);
 *   3. ask about each name, page by page, storing before moving the cursor (askAll.ts);
 *   4. judge again the pending issuances whose completion window has passed;
 *   5. record and announce each issuance that became unexpected (announce.ts).
 */

export interface TransparencyPorts {
  readonly account: string;
  readonly settings: Pick<Settings, "transparency">;
  readonly now: () => Date;
  readonly inventory: Pick<Inventory, "list">;
  readonly history: Pick<History, "events" | "append">;
  readonly transparency: TransparencyStore;
  readonly notifier: Pick<Notifier, "notifyIssuances">;
  readonly secrets: Pick<SecretStore, "named">;
  /** The log watcher, asking with this key (undefined: without one). */
  readonly openWatcher: (apiKey: () => Promise<string | undefined>) => LogWatcher;
}

export interface TransparencyRun {
  readonly account: string;
  /** False when CERTSCHED_CT_WATCH is off: nothing was asked. */
  readonly watched: boolean;
  readonly names: number;
  readonly requests: number;
  readonly newIssuances: number;
  /** Issuances that became unexpected in this run. */
  readonly unexpected: readonly SeenIssuance[];
  readonly pending: number;
  readonly messages: number;
  /** What went wrong or was left for the next run, one line each, escaped and redacted. */
  readonly problems: readonly string[];
  /** A person must act: an unexpected issuance, a refused key, names the watcher could not be asked about. */
  readonly failed: boolean;
}

/** How far back requests and readings are looked for (the longest certificate lives 398 days). */
const LOOK_BACK_MS = 400 * DAY_MS;

export async function watchTransparency(
  ports: TransparencyPorts,
  log: Logger,
  options: { readonly trigger: Trigger; readonly signal?: AbortSignal },
): Promise<TransparencyRun> {
  const settings = ports.settings.transparency();
  if (!settings.watch) return idle(ports.account, []);
  if (ports.transparency.kind === "none") {
    const why =
      "the Certificate Transparency watch needs storage (AzureWebJobsStorage) to keep its cursors";
    return idle(ports.account, [why], true);
  }
  const records = await ports.inventory.list();
  const names = watchedNames(records.items, settings.domains);
  const judged = await judgeOf(ports, records.items, settings);
  const watcher = ports.openWatcher(apiKeyOf(ports, settings));
  try {
    const asked = await askAllNames(ports, watcher, names.names, {
      keyName: keyNameOf(settings),
      allowancePerHour: settings.hourlyAllowance,
      judge: judged.judge,
      signal: options.signal,
    });
    const ripe = await judgePending(ports, judged.rejudge);
    const after = (await ports.transparency.list(ports.account)).items;
    const run = { runId: randomUUID(), trigger: options.trigger };
    const announced = await announceUnexpected(ports, after, run, log);
    return {
      account: ports.account,
      watched: true,
      names: names.names.length,
      requests: asked.requests,
      newIssuances: asked.added.length,
      unexpected: announced.recorded,
      pending: after.filter((s) => s.verdict.kind === "pending").length,
      messages: announced.sent,
      problems: [...names.problems, ...asked.problems, ...announced.problems],
      failed: announced.recorded.length > 0 || ripe > 0 || asked.failed,
    };
  } finally {
    await watcher.close();
  }
}

function idle(account: string, problems: string[], failed = false): TransparencyRun {
  return {
    account,
    watched: false,
    names: 0,
    requests: 0,
    newIssuances: 0,
    unexpected: [],
    pending: 0,
    messages: 0,
    problems,
    failed,
  };
}

/** The run's judge: what certsched has read and sent, from the inventory and the history. */
async function judgeOf(
  ports: Pick<TransparencyPorts, "account" | "history" | "now">,
  records: Parameters<typeof knownCertificatesOf>[0],
  settings: TransparencySettings,
) {
  const now = ports.now();
  const events = await ports.history.events({
    since: new Date(now.getTime() - LOOK_BACK_MS),
    limit: 10_000,
  });
  const context = {
    known: knownCertificatesOf(records, events.items),
    sent: sentRequestsOf(records, events.items),
    now,
    completionWindowMs: settings.completionWindowMs,
  };
  return {
    judge: (issuance: SeenIssuance["issuance"], watched: WatchedName): SeenIssuance => ({
      account: ports.account,
      issuance,
      watched: watched.name,
      firstSeenAt: now,
      verdict: classify(issuance, context),
    }),
    rejudge: (seen: SeenIssuance) => rejudge(seen, context),
  };
}

/** Pending issuances judged again; returns how many became unexpected. */
async function judgePending(
  ports: Pick<TransparencyPorts, "account" | "transparency">,
  again: (seen: SeenIssuance) => SeenIssuance["verdict"],
): Promise<number> {
  let became = 0;
  for (const seen of (await ports.transparency.list(ports.account)).items) {
    if (seen.verdict.kind !== "pending") continue;
    const verdict = again(seen);
    if (verdict.kind === "pending") continue;
    await ports.transparency.setVerdict(ports.account, seen.issuance.id, verdict);
    if (verdict.kind === "unexpected") became++;
  }
  return became;
}

/** The key: given directly (local use), else read from the vault by its secret name. */
function apiKeyOf(ports: Pick<TransparencyPorts, "secrets">, settings: TransparencySettings) {
  return async () => settings.apiKey ?? (await ports.secrets.named(settings.apiKeySecretName));
}

/** Whose allowance a request takes from: the watcher's host and where the key comes from. */
export function keyNameOf(settings: TransparencySettings): string {
  const host = new URL(settings.url).host;
  return `${host}|${settings.apiKey ? "direct" : `secret:${settings.apiKeySecretName}`}`;
}
