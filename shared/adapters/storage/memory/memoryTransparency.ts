import type { TransparencyStore, WatcherState } from "../../../core/ports/transparency.js";
import type { SeenIssuance } from "../../../core/transparency/issuance.js";

/** A claim on an issuance's message older than this may be taken again (its sender died). */
export const NOTICE_CLAIM_MS = 15 * 60_000;

interface Kept {
  seen: SeenIssuance;
  claimedAt?: Date | undefined;
}

const HOUR_MS = 3_600_000;

type IssuanceMethods = Omit<
  TransparencyStore,
  "kind" | "cursor" | "setCursor" | "watcherState" | "pause" | "takeRequest"
>;
type WatcherMethods = Pick<TransparencyStore, "watcherState" | "pause" | "takeRequest">;

/**
 * The Certificate Transparency store in process (no storage configured: tests, the sandbox): the
 * same rules as the table's, each account's cursors and issuances apart.
 */
export function memoryTransparencyStore(): TransparencyStore {
  const cursors = new Map<string, string>();
  return {
    kind: "memory",
    cursor: async (account, name) => cursors.get(JSON.stringify([account, name])),
    setCursor: async (account, name, after) => {
      cursors.set(JSON.stringify([account, name]), after);
    },
    ...memoryIssuances(),
    ...memoryWatcher(),
  };
}

/** Each account's issuances, their messages' claims and acknowledgements. */
function memoryIssuances(): IssuanceMethods {
  const issuances = new Map<string, Map<string, Kept>>();
  const of = (account: string) => {
    let kept = issuances.get(account);
    if (!kept) {
      kept = new Map();
      issuances.set(account, kept);
    }
    return kept;
  };
  const update = (account: string, id: string, change: (seen: SeenIssuance) => SeenIssuance) => {
    const kept = of(account).get(id);
    if (kept) kept.seen = change(kept.seen);
    return kept?.seen;
  };
  return {
    addNew: async (items) => {
      const added: SeenIssuance[] = [];
      for (const item of items) {
        const kept = of(item.account);
        if (kept.has(item.issuance.id)) continue;
        kept.set(item.issuance.id, { seen: item });
        added.push(item);
      }
      return added;
    },
    list: async (account, options) => ({
      items: [...of(account).values()]
        .map((k) => k.seen)
        .filter((s) => !options?.since || s.firstSeenAt.getTime() >= options.since.getTime())
        .sort((a, b) => b.firstSeenAt.getTime() - a.firstSeenAt.getTime()),
      invalid: [],
    }),
    get: async (account, id) => of(account).get(id)?.seen,
    setVerdict: async (account, id, verdict) => {
      update(account, id, (seen) => ({ ...seen, verdict }));
    },
    claimNotice: async (account, id, now) => {
      const kept = of(account).get(id);
      if (!kept || kept.seen.notifiedAt) return false;
      if (kept.claimedAt && now.getTime() - kept.claimedAt.getTime() < NOTICE_CLAIM_MS)
        return false;
      kept.claimedAt = now;
      return true;
    },
    markNotified: async (account, id, at) => {
      update(account, id, (seen) => ({ ...seen, notifiedAt: at }));
    },
    releaseNotice: async (account, id) => {
      const kept = of(account).get(id);
      if (kept) kept.claimedAt = undefined;
    },
    // The first acknowledgement is kept: a second one changes nothing.
    acknowledge: async (account, id, ack) =>
      update(account, id, (seen) => (seen.acknowledged ? seen : { ...seen, acknowledged: ack })),
  };
}

/** The API's pause and each hour's count, per key name. */
function memoryWatcher(): WatcherMethods {
  const states = new Map<string, WatcherState>();
  const hours = new Map<string, { hour: number; count: number }>();
  return {
    watcherState: async (keyName) => states.get(keyName) ?? {},
    pause: async (keyName, until, reason) => {
      states.set(keyName, { pausedUntil: until, reason });
    },
    takeRequest: async (keyName, now, allowance) => {
      const hour = Math.floor(now.getTime() / HOUR_MS);
      const held = hours.get(keyName);
      const count = held?.hour === hour ? held.count : 0;
      if (count >= allowance) return false;
      hours.set(keyName, { hour, count: count + 1 });
      return true;
    },
  };
}

/** No storage: the watch cannot keep a cursor, so it does not run (its result says why). */
export const noTransparencyStore: TransparencyStore = {
  ...memoryTransparencyStore(),
  kind: "none",
};
