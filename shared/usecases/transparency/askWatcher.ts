import type {
  LogWatcher,
  TransparencyStore,
  WatcherFailure,
} from "../../core/ports/transparency.js";
import type { Issuance, SeenIssuance, WatchedName } from "../../core/transparency/issuance.js";
import { MAX_PAGES_PER_NAME, pageProblem } from "../../core/transparency/paging.js";
import { escapeControl } from "../../lib/text/escapeControl.js";

/**
 * Asks the log watcher about one watched name, page after page from the stored cursor, until
 * the empty page, the run's budget or a failure. Each page's issuances are stored before the
 * cursor moves past them: a restart in the middle of a page reads that page again, and storing
 * an issuance already stored does nothing, so none is skipped and none counts twice.
 */

export interface AskPorts {
  readonly account: string;
  readonly transparency: TransparencyStore;
  readonly watcher: LogWatcher;
  readonly now: () => Date;
}

export interface AskContext {
  /** The name of the API key's allowance (never the key). */
  readonly keyName: string;
  readonly allowancePerHour: number;
  /** How an issuance read now is judged (the run's known certificates and requests). */
  readonly judge: (issuance: Issuance, watched: WatchedName) => SeenIssuance;
  readonly signal?: AbortSignal | undefined;
}

/** How asking about one name ended. */
export type AskEnd =
  /** The empty page: everything up to now is read. */
  | { readonly kind: "done" }
  /** The hour's allowance, the run's budget, or the page bound: the rest on the next run. */
  | { readonly kind: "stopped"; readonly why: string; readonly all: boolean }
  /** The watcher failed; `all` says whether the other names must not be asked either. */
  | { readonly kind: "failed"; readonly failure: WatcherFailure; readonly all: boolean }
  /** An answer that cannot be paged on (ids backwards, a page repeating). */
  | { readonly kind: "bad-page"; readonly problem: string };

export interface Asked {
  readonly end: AskEnd;
  /** Requests sent for this name. */
  readonly requests: number;
  /** Issuances stored by this run (new to the store). */
  readonly added: readonly SeenIssuance[];
  /** Entries the watcher sent that could not be kept, in words. */
  readonly problems: readonly string[];
}

/** Pages through one watched name; never throws for the watcher's answers (storage may throw). */
export async function askAboutName(
  ports: AskPorts,
  name: WatchedName,
  context: AskContext,
): Promise<Asked> {
  const { account, transparency, watcher } = ports;
  let after = await transparency.cursor(account, name.name);
  const added: SeenIssuance[] = [];
  const problems: string[] = [];
  let requests = 0;
  const result = (end: AskEnd): Asked => ({ end, requests, added, problems });
  for (let page = 0; page < MAX_PAGES_PER_NAME; page++) {
    if (context.signal?.aborted)
      return result({ kind: "stopped", why: "the run's time is up", all: true });
    const allowed = await transparency.takeRequest(
      context.keyName,
      ports.now(),
      context.allowancePerHour,
    );
    if (!allowed) {
      return result({ kind: "stopped", why: "this hour's allowance is used up", all: true });
    }
    requests++;
    const answer = await watcher.issuances({ name, after }, context.signal);
    if (answer.kind === "failed") {
      const all = answer.reason === "unauthorized" || answer.reason === "rate-limited";
      return result({ kind: "failed", failure: answer, all });
    }
    const problem = pageProblem(after, answer);
    if (problem) return result({ kind: "bad-page", problem: escapeControl(problem) });
    problems.push(...answer.problems);
    const seen = answer.issuances.map((issuance) => context.judge(issuance, name));
    added.push(...(await transparency.addNew(seen)));
    if (answer.lastId === undefined) {
      if (answer.problems.length === 0) return result({ kind: "done" });
      return result({
        kind: "bad-page",
        problem: "a page held no readable issuance id: the watch cannot page past it",
      });
    }
    await transparency.setCursor(account, name.name, answer.lastId);
    after = answer.lastId;
  }
  return result({
    kind: "stopped",
    why: `${MAX_PAGES_PER_NAME} pages read in one run; the rest on the next run`,
    all: false,
  });
}
