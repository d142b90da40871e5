import type { Trigger } from "../../core/history/events.js";
import type { SharedBudget } from "../../core/ports/budget.js";
import type { History, ServiceRequest } from "../../core/ports/history.js";
import { REQUEST_WINDOW_MS, type RequestLog } from "../../core/ports/requestLog.js";
import { QuotaExhaustedError } from "../../core/quota/budgetRules.js";
import { purposeOf } from "../../core/quota/requestContext.js";
import { ensureError } from "../../lib/errors.js";
import type { AttemptTicket } from "../../lib/http/httpClient.js";
import { redact } from "../../lib/redact/redact.js";

export interface RequestLogOptions {
  readonly history: History;
  readonly now: () => Date;
  /** Trigger of requests whose context names none (the CLI: "cli"; the function app: "http"). */
  readonly defaultTrigger: Trigger;
  /** The shared budget (CERTSCHED_SERVICE_QUOTA with table storage); unset: counting only. */
  readonly budget?: SharedBudget | undefined;
  /** Run id of requests whose context names none: this process's. */
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
    async reserve(operation, context) {
      const counted: AttemptTicket = {
        settle: (wasSent) => {
          if (wasSent) log.count(operation, context);
        },
      };
      if (!budget) return counted;
      let reservation: Awaited<ReturnType<SharedBudget["reserve"]>>;
      try {
        reservation = await budget.reserve({
          operation,
          trigger: context?.trigger ?? options.defaultTrigger,
          purpose: purposeOf(operation, context),
          runId: context?.runId ?? processId,
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
    count(operation, context) {
      sent += 1;
      if (history.kind === "none") return;
      const request: ServiceRequest = {
        at: now(),
        operation,
        trigger: context?.trigger ?? options.defaultTrigger,
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
