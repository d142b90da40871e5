import type { Trigger } from "../../core/history/events.js";
import type { QuotaUsage, SharedBudget } from "../../core/ports/budget.js";
import type { History, ServiceRequest } from "../../core/ports/history.js";
import { REQUEST_WINDOW_MS, type RequestLog } from "../../core/ports/requestLog.js";
import { QuotaExhaustedError } from "../../core/quota/budgetRules.js";
import {
  purposeOf,
  type RequestContext,
  type RequestOperation,
} from "../../core/quota/requestContext.js";
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
  return new HistoryRequestLog(options);
}

/**
 * Counts the requests in the history (or only in memory with kind "none") and, with a shared
 * budget, reserves each attempt there first; writes never fail a request, `settled()` reports them.
 */
class HistoryRequestLog implements RequestLog {
  readonly kind: History["kind"];
  readonly shared: boolean;
  readonly #options: RequestLogOptions;
  readonly #history: History;
  readonly #now: () => Date;
  readonly #budget: SharedBudget | undefined;
  readonly #processId: string;
  readonly #pending = new Set<Promise<void>>();
  #unrecorded = 0;
  #failures: string[] = [];
  #sent = 0;

  constructor(options: RequestLogOptions) {
    this.#options = options;
    this.#history = options.history;
    this.#now = options.now;
    this.#budget = options.budget;
    this.#processId = options.processId ?? "process";
    this.kind = this.#history.kind;
    this.shared = this.#budget !== undefined;
  }

  sent(): number {
    return this.#sent;
  }

  async reserve(operation: RequestOperation, context?: RequestContext): Promise<AttemptTicket> {
    const counted: AttemptTicket = {
      settle: (wasSent) => {
        if (wasSent) this.count(operation, context);
      },
    };
    const budget = this.#budget;
    if (!budget) return counted;
    let reservation: Awaited<ReturnType<SharedBudget["reserve"]>>;
    try {
      reservation = await budget.reserve({
        operation,
        trigger: context?.trigger ?? this.#options.defaultTrigger,
        purpose: purposeOf(operation, context),
        runId: context?.runId ?? this.#processId,
      });
    } catch (error) {
      if (error instanceof QuotaExhaustedError) throw error;
      // Storage that cannot keep the budget does not stop the request (as counting never
      // did): the caller hears of it in settled(), and the service's own 429 still counts.
      this.#noteFailure(error);
      return counted;
    }
    return {
      settle: (wasSent) => {
        if (wasSent) {
          // The reservation's row is the count: nothing more to write.
          this.#sent += 1;
          return;
        }
        this.#track(reservation.settle(false).catch((error) => this.#noteFailure(error)));
      },
    };
  }

  async usage(runId: string): Promise<QuotaUsage | undefined> {
    return this.#budget ? this.#budget.usage(runId) : undefined;
  }

  count(operation: RequestOperation, context?: RequestContext): void {
    this.#sent += 1;
    const history = this.#history;
    if (history.kind === "none") return;
    const request: ServiceRequest = {
      at: this.#now(),
      operation,
      trigger: context?.trigger ?? this.#options.defaultTrigger,
    };
    // Counting must never fail the request it counts: the caller hears of it in settled().
    this.#track(history.recordRequests([request]).catch((error) => this.#noteFailure(error)));
  }

  async settled(): Promise<{ unrecorded: number; failures: string[] }> {
    await this.#drain();
    const report = { unrecorded: this.#unrecorded, failures: this.#failures };
    this.#unrecorded = 0;
    this.#failures = [];
    return report;
  }

  async since(since: Date): Promise<number> {
    await this.#drain();
    return this.#history.requestsSince(since);
  }

  /** Waits until no write is in flight (writes may start while others land). */
  async #drain(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  #noteFailure(error: unknown): void {
    this.#unrecorded += 1;
    const line = redact(ensureError(error).message);
    if (this.#failures.length < MAX_FAILURES && !this.#failures.includes(line))
      this.#failures.push(line);
  }

  #track(write: Promise<void>): void {
    this.#pending.add(write);
    void write.finally(() => this.#pending.delete(write));
  }
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
