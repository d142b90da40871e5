import type { LogWatcher, WatcherFailure } from "../../core/ports/transparency.js";
import type { SeenIssuance, WatchedName } from "../../core/transparency/issuance.js";
import { instantText } from "../../core/verification/served.js";
import { HOUR_MS } from "../../lib/time.js";
import { type AskContext, type AskPorts, askAboutName } from "./askWatcher.js";

/**
 * Every watched name of an account, one after the other (the API's allowance is per hour, and a
 * 429 or a refused key stops them all): a name that fails is reported and the next is asked.
 */

export interface AskedAll {
  readonly requests: number;
  readonly added: readonly SeenIssuance[];
  readonly problems: readonly string[];
  /** A refused key, or a name the watcher could not be asked about. */
  readonly failed: boolean;
}

/** How long a refused key leaves the watcher alone: an operator fixes the key meanwhile. */
const UNAUTHORIZED_PAUSE_MS = HOUR_MS;

export async function askAllNames(
  ports: Omit<AskPorts, "watcher">,
  watcher: LogWatcher,
  names: readonly WatchedName[],
  context: AskContext,
): Promise<AskedAll> {
  const added: SeenIssuance[] = [];
  const problems: string[] = [];
  let requests = 0;
  let failed = false;
  const paused = await pausedNow(ports, context.keyName);
  if (paused) return { requests, added, problems: [paused.line], failed: paused.failed };
  for (const [i, name] of names.entries()) {
    const asked = await askAboutName({ ...ports, watcher }, name, context);
    requests += asked.requests;
    added.push(...asked.added);
    problems.push(...asked.problems.map((p) => `${name.name}: ${p}`));
    const end = asked.end;
    const left = names.length - i - 1;
    if (end.kind === "stopped") {
      problems.push(`${name.name}: ${end.why}${left > 0 ? ` (${left} more names wait)` : ""}`);
      if (end.all) break;
    } else if (end.kind === "bad-page") {
      problems.push(`${name.name}: ${end.problem}; its cursor stays where it was`);
      failed = true;
    } else if (end.kind === "failed") {
      problems.push(`${name.name}: ${failureLine(end.failure)}`);
      failed = failed || end.failure.reason !== "rate-limited";
      if (end.all) {
        await pauseFor(ports, context.keyName, end.failure);
        break;
      }
    }
  }
  return { requests, added, problems, failed };
}

function failureLine(failure: WatcherFailure): string {
  return `the log watcher ${failure.reason === "unauthorized" ? "refused the API key" : failure.reason}: ${failure.detail}`;
}

/** A 429 pauses the key for its Retry-After; a refused key for an hour. */
async function pauseFor(
  ports: Omit<AskPorts, "watcher">,
  keyName: string,
  failure: WatcherFailure,
) {
  const ms =
    failure.reason === "rate-limited" ? (failure.retryAfterMs ?? HOUR_MS) : UNAUTHORIZED_PAUSE_MS;
  const reason = failure.reason === "unauthorized" ? "the API key was refused" : "rate limited";
  await ports.transparency.pause(keyName, new Date(ports.now().getTime() + ms), reason);
}

/** The pause in force, as a line; a refused key still fails the runs it holds off. */
async function pausedNow(ports: Omit<AskPorts, "watcher">, keyName: string) {
  const state = await ports.transparency.watcherState(keyName);
  const until = state.pausedUntil;
  if (!until || until.getTime() <= ports.now().getTime()) return undefined;
  const reason = state.reason ?? "paused";
  return {
    line: `the log watcher is not asked before ${instantText(until)} (${reason})`,
    failed: reason.startsWith("the API key"),
  };
}
