import type { AttemptTicket } from "../../lib/http/httpClient.js";
import { DAY_MS } from "../../lib/time.js";
import type { RequestContext, RequestOperation } from "../quota/requestContext.js";
import type { QuotaUsage } from "./budget.js";
import type { History } from "./history.js";

/** The window `certsched status`, the dashboard and the sweep summary count over: 7 days. */
export const REQUEST_WINDOW_MS = 7 * DAY_MS;

/**
 * Every request certsched sends to the service, counted into the history (the vendor
 * publishes a request limit per subscriber). The ServiceClient counts each attempt that may have
 * reached the service; each is written at once, so a function invocation that ends right after
 * its call has it recorded as soon as `settled()` resolves, and a count read after `settled()`
 * includes every request sent before it.
 */
export interface RequestLog {
  /** Counts one request sent now, under its context's trigger or the default. */
  count(operation: RequestOperation, context?: RequestContext): void;
  /**
   * Before each attempt: with a shared budget (CERTSCHED_SERVICE_QUOTA and storage), reserves one
   * request and rejects with QuotaExhaustedError when it is refused (the attempt must not be
   * sent); the ticket then keeps the row of a sent attempt and releases the others. Without one,
   * the ticket counts a sent attempt as `count` does (nothing changes with the quota unset).
   */
  reserve(operation: RequestOperation, context?: RequestContext): Promise<AttemptTicket>;
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
