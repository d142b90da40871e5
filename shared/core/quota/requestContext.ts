import type { AttemptObserver } from "../../lib/http/attemptObserver.js";
import type { Trigger } from "../history/events.js";

/**
 * What a request to the service is for, as the shared request budget ranks it: "renewal"
 * requests have first claim on CERTSCHED_SERVICE_QUOTA, "read" requests get only what renewals
 * will not need. A sweep (timer, queued run, `certsched sweep`), a renewal by name and a create
 * send theirs as renewals; everything else is a read: a Get Certificate read,
 * GET /api/certificates/due, a connectivity test, the service reads of a verification.
 */
export type RequestPurpose = "renewal" | "read";

/**
 * The work a service request belongs to, passed with the request (every ServiceOperations
 * method takes it): what it counts as, who started it, whose reservation it is, and who watches
 * its attempts. One ServiceClient serves a timer sweep, a queued run and HTTP calls in the same
 * process at once, so none of this can be a property of the client.
 */
export interface RequestContext {
  readonly purpose: RequestPurpose;
  /** What started the work, for the history. Unset: the request log's default ("cli", "http"). */
  readonly trigger?: Trigger | undefined;
  /** Tells this run's own reservations from other runs' (a deferral's cause). Unset: the process's. */
  readonly runId?: string | undefined;
  /** Told of every attempt the HTTP client makes, retries included (adaptive concurrency). */
  readonly observer?: AttemptObserver | undefined;
}

/**
 * The purpose a request is reserved under. Ordering or scheduling a certificate is always a
 * renewal, whoever sends it; a list, a test or a Get Certificate is one only as part of renewal
 * work (a sweep's list, a renewal by name's look-up). Without a context: a read, the cautious side
 * (a read is held back sooner, a renewal never by a read).
 */
export function purposeOf(
  operation: RequestOperation,
  context: RequestContext | undefined,
): RequestPurpose {
  if (operation === "renew" || operation === "renew-v3" || operation === "create") return "renewal";
  return context?.purpose ?? "read";
}

/** Operations as the history names them (ServiceRequest.operation). */
export type RequestOperation = "list" | "renew" | "test" | "create" | "renew-v3" | "get";
