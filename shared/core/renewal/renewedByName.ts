import type { FailReason } from "../preflight/preflight.js";

/** What a renewal by name (usecases/renewByName.ts) did: the CLI's renew, the HTTP API's. */
export interface RenewedByName {
  /**
   * "in-progress": a sweep was sending its own request for it at that moment; none sent.
   * "blocked": its last preflight says a person must fix `blockedBy` first; none sent.
   * "disabled": its certificate policy (`policy`) says never renew it; none sent.
   */
  readonly status: "scheduled" | "in-progress" | "blocked" | "disabled";
  /** The service's confirmation, or why nothing was sent. */
  readonly message: string;
  /** The target the renewal was sent for (undefined: unknown). */
  readonly target: string | undefined;
  /** Whether the ledger holds this request, so the next sweep does not order it again. */
  readonly recorded: boolean;
  /** Set when a configured ledger could not record it: why, and that a sweep may ask again. */
  readonly note?: string;
  /** Set when the service did not answer in time and Get Certificate showed the renewal done. */
  readonly confirmedBy?: "get-certificate";
  /** Blocked: the reason its last preflight failed for. */
  readonly blockedBy?: FailReason;
  /** Forced: renewed although its last preflight blocked it, for this reason. */
  readonly forcedPast?: FailReason;
  /**
   * Disabled: the label of the certificate policy that disables it (`CERTSCHED_CERTIFICATE_POLICY[0]`);
   * forced: the one it was renewed past.
   */
  readonly policy?: string;
}
