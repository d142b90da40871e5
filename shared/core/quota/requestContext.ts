import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What a request to the service is for, as the shared request budget ranks it:
 * "renewal" requests have first claim on CERTSCHED_SERVICE_QUOTA, "read" requests get only what
 * renewals will not need. A sweep (timer, queued run, `certsched sweep`), a renewal by name and a
 * create run inside `withPurpose("renewal")`; everything else is a read: a Get Certificate read,
 * GET /api/certificates/due, a connectivity test, the service reads of a verification.
 */
export type RequestPurpose = "renewal" | "read";

/** The work a request belongs to: its purpose, and the id its reservations are written under. */
export interface PurposeContext {
  readonly purpose: RequestPurpose;
  /** Tells this run's own reservations from other runs' (the cause of a deferral). */
  readonly runId: string;
}

const current = new AsyncLocalStorage<PurposeContext>();

/** Runs `work` with every request it sends counted as `context.purpose` under `context.runId`. */
export function withPurpose<T>(context: PurposeContext, work: () => Promise<T>): Promise<T> {
  return current.run(context, work);
}

/** The purpose of the work running now, or undefined outside any `withPurpose`. */
export function currentPurpose(): PurposeContext | undefined {
  return current.getStore();
}

/**
 * The purpose a request is reserved under. Ordering or scheduling a certificate is always a
 * renewal, whoever sends it; a list, a test or a Get Certificate is one only inside renewal work
 * (a sweep's list, a renewal by name's look-up). Outside any: a read, the cautious side (a read
 * is held back sooner, a renewal never by a read).
 */
export function purposeOf(operation: RequestOperation): RequestPurpose {
  if (operation === "renew" || operation === "renew-v3" || operation === "create") return "renewal";
  return currentPurpose()?.purpose ?? "read";
}

/** Operations as the history names them (ServiceRequest.operation). */
export type RequestOperation = "list" | "renew" | "test" | "create" | "renew-v3" | "get";
