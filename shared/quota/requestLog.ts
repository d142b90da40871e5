import { ensureError } from "../errors.js";
import type { History, ServiceRequest } from "../history/history.js";
import type { Trigger } from "../history/historyEvent.js";
import type { AttemptTicket } from "../http/httpClient.js";
import { redact } from "../redact.js";
import { currentPurpose, purposeOf } from "./requestPurpose.js";
import { currentTrigger } from "./requestTrigger.js";
import { QuotaExhaustedError, type QuotaUsage, type SharedBudget } from "./sharedBudget.js";

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
   * Before each attempt: with a shared budget (CERTSCHED_SERVICE_QUOTA and storage), reserves one
   * request and rejects with QuotaExhaustedError when it is refused (the attempt must not be
   * sent); the ticket then keeps the row of a sent attempt and releases the others. Without one,
   * the ticket counts a sent attempt as `count` does (nothing changes with the quota unset).
   */
  reserve(operation: RequestOperation): Promise<AttemptTicket>;
  /**
   * The shared budget's use of the window as `runId` sees it (the cause of a deferral);
   * undefined without a shared budget or before this process reserved anything.
   */
  usage(runId: string): Promise<QuotaUsage | undefined>;
  /** Whether a shared budget enforces CERTSCHED_SERVICE_QUOTA across processes. */
  readonly shared: boolean;
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
  /** The shared budget (CERTSCHED_SERVICE_QUOTA with table storage); unset: counting only. */
  readonly budget?: SharedBudget | undefined;
  /** Run id of requests sent outside any withPurpose: this process's. */
  readonly processId?: string;
}

/** Failure lines kept between two `settled()` calls (one storage outage is one line anyway). */
const MAX_FAILURES = 5;

export function requestLog(options: RequestLogOptions): RequestLog {
  const { history, now } = options;
  const pending = new Set<Promise<void>>();
  let unrecorded = 0;
  let failures: string[] = [];
  let sent = 0;
  const { budget } = options;
  const processId = options.processId ?? "process";
  const noteFailure = (error: unknown) => {
    unrecorded += 1;
    const line = redact(ensureError(error).message);
    if (failures.length < MAX_FAILURES && !failures.includes(line)) failures.push(line);
  };
  const track = (write: Promise<void>) => {
    pending.add(write);
    void write.finally(() => pending.delete(write));
  };
  const log: RequestLog = {
    kind: history.kind,
    shared: budget !== undefined,
    sent: () => sent,
    async reserve(operation) {
      const counted: AttemptTicket = {
        settle: (wasSent) => {
          if (wasSent) log.count(operation);
        },
      };
      if (!budget) return counted;
      let reservation: Awaited<ReturnType<SharedBudget["reserve"]>>;
      try {
        reservation = await budget.reserve({
          operation,
          trigger: currentTrigger() ?? options.defaultTrigger,
          purpose: purposeOf(operation),
          runId: currentPurpose()?.runId ?? processId,
        });
      } catch (error) {
        if (error instanceof QuotaExhaustedError) throw error;
        // Storage that cannot keep the budget does not stop the request (as counting never
        // did): the caller hears of it in settled(), and the service's own 429 still counts.
        noteFailure(error);
        return counted;
      }
      return {
        settle: (wasSent) => {
          if (wasSent) {
            // The reservation's row is the count: nothing more to write.
            sent += 1;
            return;
          }
          track(reservation.settle(false).catch(noteFailure));
        },
      };
    },
    usage: async (runId) => (budget ? budget.usage(runId) : undefined),
    count(operation) {
      sent += 1;
      if (history.kind === "none") return;
      const request: ServiceRequest = {
        at: now(),
        operation,
        trigger: currentTrigger() ?? options.defaultTrigger,
      };
      // Counting must never fail the request it counts: the caller hears of it in settled().
      track(history.recordRequests([request]).catch(noteFailure));
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
  return log;
}

/** A log that counts nothing (tests and tools that build a ServiceClient by hand). */
export const noRequestLog: RequestLog = {
  kind: "none",
  shared: false,
  count: () => {},
  reserve: async () => ({ settle: () => {} }),
  usage: async () => undefined,
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
