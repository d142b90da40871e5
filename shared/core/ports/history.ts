import type { CertificateEvent, RunRecord, Trigger } from "../history/events.js";

/** One request certsched sent to the service, retries included (the request budget). */
export interface ServiceRequest {
  readonly at: Date;
  /** The operation: "list", "renew", "test", "create", "renew-v3", "get". */
  readonly operation: string;
  readonly trigger: Trigger;
}

/** Rows read back, and the ones that could not be (named by their problems). */
export interface Read<T> {
  readonly items: T[];
  /** One line per row that failed validation: shown as a warning, never guessed at. */
  readonly invalid: string[];
}

export interface EventQuery {
  /** One certificate's events; undefined: every certificate's. */
  readonly certificateName?: string | undefined;
  /** Events at or after this instant. */
  readonly since: Date;
  /** At most this many, newest first (default 1000). */
  readonly limit?: number;
}

/**
 * The append-only history: what happened, for people. Writes throw
 * HISTORY_UNAVAILABLE; callers that record (sweeps, renewals) turn that into a warning.
 */
export interface History {
  /** "none": no storage configured; nothing is kept. */
  readonly kind: "table" | "memory" | "none";
  /** Appends events and at most one run record (a run's record again replaces it). */
  append(events: readonly CertificateEvent[], run?: RunRecord): Promise<void>;
  /** Events, newest first. */
  events(query: EventQuery): Promise<Read<CertificateEvent>>;
  /** The latest `last` runs, newest first. */
  runs(last: number): Promise<Read<RunRecord>>;
  /** Removes every row from before `cutoff`; resolves with how many. */
  removeBefore(cutoff: Date): Promise<number>;
  /** Counts requests sent to the service (the request budget). */
  recordRequests(requests: readonly ServiceRequest[]): Promise<void>;
  /** How many requests were sent at or after `since` (a rolling window). */
  requestsSince(since: Date): Promise<number>;
}

export const DEFAULT_EVENT_LIMIT = 1000;

export const noHistory: History = {
  kind: "none",
  append: async () => {},
  events: async () => ({ items: [], invalid: [] }),
  runs: async () => ({ items: [], invalid: [] }),
  removeBefore: async () => 0,
  recordRequests: async () => {},
  requestsSince: async () => 0,
};

/** In-process history (the sandbox, tests of callers). */
export function memoryHistory(): History {
  let events: CertificateEvent[] = [];
  let runs: RunRecord[] = [];
  let requests: ServiceRequest[] = [];
  // Reversed first: within one instant, the later append comes first, as in the table.
  const newestFirst = <T>(items: T[], at: (item: T) => Date) =>
    [...items].reverse().sort((a, b) => at(b).getTime() - at(a).getTime());
  return {
    kind: "memory",
    append: async (more, run) => {
      events.push(...more);
      // A run appended again (its row rewritten after its bookkeeping) replaces itself.
      if (run) runs = [...runs.filter((r) => r.runId !== run.runId), run];
    },
    events: async ({ certificateName, since, limit = DEFAULT_EVENT_LIMIT }) => ({
      items: newestFirst(
        events.filter(
          (e) =>
            e.at.getTime() >= since.getTime() &&
            (certificateName === undefined || e.certificateName === certificateName),
        ),
        (e) => e.at,
      ).slice(0, limit),
      invalid: [],
    }),
    runs: async (last) => ({
      items: newestFirst(runs, (r) => r.startedAt).slice(0, last),
      invalid: [],
    }),
    removeBefore: async (cutoff) => {
      const before = events.length + runs.length + requests.length;
      events = events.filter((e) => e.at.getTime() >= cutoff.getTime());
      runs = runs.filter((r) => r.startedAt.getTime() >= cutoff.getTime());
      requests = requests.filter((r) => r.at.getTime() >= cutoff.getTime());
      // Every row counts, as in the table (request rows are rows of the history too).
      return before - events.length - runs.length - requests.length;
    },
    recordRequests: async (more) => {
      requests.push(...more);
    },
    requestsSince: async (since) =>
      requests.filter((r) => r.at.getTime() >= since.getTime()).length,
  };
}
