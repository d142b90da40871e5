import { ensureError } from "../errors.js";
import type { History, ServiceRequest } from "../history/history.js";
import type { Trigger } from "../history/historyEvent.js";
import { redact } from "../redact.js";
import { currentTrigger } from "./requestTrigger.js";

/** The window `certsched status`, the dashboard and the sweep summary count over: 7 days. */
export const REQUEST_WINDOW_MS = 7 * 86_400_000;

/** Operations as the history names them (ServiceRequest.operation). */
export type RequestOperation = "list" | "renew" | "test" | "create" | "renew-v3" | "get";

/**
 * Every request certsched sends to the service, counted into the history (issue 16: the vendor
 * publishes a request limit per subscriber). The ServiceClient counts each attempt that may have
 * reached the service; each is written at once, so a function invocation that ends right after
 * its call has it recorded as soon as `settled()` resolves, and a count read after `settled()`
 * includes every request sent before it.
 */
export interface RequestLog {
  /** Counts one request sent now, under the current trigger (withTrigger) or the default. */
  count(operation: RequestOperation): void;
  /**
   * Requests counted by this log since it was made, stored or not (also with kind "none"): a
   * sweep's budget compares two readings to know what its renewals, retries included, spent.
   */
  sent(): number;
  /**
   * Waits for every write in flight; resolves with how many requests could not be recorded
   * since the last call (each such failure has been kept as one line for `failures`).
   */
  settled(): Promise<{ unrecorded: number; failures: string[] }>;
  /** Requests at or after `since`, once the writes in flight have landed. */
  since(since: Date): Promise<number>;
  /** Whether the counts are kept anywhere ("none": no storage, nothing counted across runs). */
  readonly kind: History["kind"];
}

export interface RequestLogOptions {
  readonly history: History;
  readonly now: () => Date;
  /** Trigger of requests sent outside any withTrigger (the CLI: "cli"; the function app: "http"). */
  readonly defaultTrigger: Trigger;
}

/** Failure lines kept between two `settled()` calls (one storage outage is one line anyway). */
const MAX_FAILURES = 5;

export function requestLog(options: RequestLogOptions): RequestLog {
  const { history, now } = options;
  const pending = new Set<Promise<void>>();
  let unrecorded = 0;
  let failures: string[] = [];
  let sent = 0;
  return {
    kind: history.kind,
    sent: () => sent,
    count(operation) {
      sent += 1;
      if (history.kind === "none") return;
      const request: ServiceRequest = {
        at: now(),
        operation,
        trigger: currentTrigger() ?? options.defaultTrigger,
      };
      const write = history.recordRequests([request]).catch((error: unknown) => {
        // Counting must never fail the request it counts: the caller hears of it in settled().
        unrecorded += 1;
        const line = redact(ensureError(error).message);
        if (failures.length < MAX_FAILURES && !failures.includes(line)) failures.push(line);
      });
      pending.add(write);
      void write.finally(() => pending.delete(write));
    },
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
      const report = { unrecorded, failures };
      unrecorded = 0;
      failures = [];
      return report;
    },
    async since(since) {
      while (pending.size > 0) await Promise.all([...pending]);
      return history.requestsSince(since);
    },
  };
}

/** A log that counts nothing (tests and tools that build a ServiceClient by hand). */
export const noRequestLog: RequestLog = {
  kind: "none",
  count: () => {},
  sent: () => 0,
  settled: async () => ({ unrecorded: 0, failures: [] }),
  since: async () => 0,
};

/**
 * Requests of the last 7 days as `certsched status` shows them: through the log when the
 * service is configured (so this command's own requests are written first), else the history;
 * null when the count cannot be read (the rest of the status is still shown).
 */
export async function requestsLast7Days(
  source: { readonly requests?: RequestLog | undefined; readonly history: History },
  now: Date,
): Promise<number | null> {
  const since = new Date(now.getTime() - REQUEST_WINDOW_MS);
  try {
    return source.requests
      ? await source.requests.since(since)
      : await source.history.requestsSince(since);
  } catch {
    return null;
  }
}
