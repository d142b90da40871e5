import type { Problem } from "../../lib/errors.js";
import type { CreateCertificateInput } from "../certificate/createRequest.js";
import type { CertificateRecord, CertificateRef } from "../certificate/records.js";
import type { RequestContext } from "../quota/requestContext.js";
import type { WithinOptions } from "../renewal/callBudget.js";

export type { RequestContext } from "../quota/requestContext.js";

/** A record the service sent that we could not use; reported, never dropped silently. */
export interface RejectedRecord {
  readonly index: number;
  readonly certificateName: string | undefined;
  readonly id: number | undefined;
  readonly problems: readonly Problem[];
}

export interface DueList {
  readonly certificates: CertificateRecord[];
  readonly rejected: RejectedRecord[];
}

/** What a confirmed 404 from the list means (spec 4.3): nothing is due. */
export function noneDue(): DueList {
  return { certificates: [], rejected: [] };
}

/** What every service call may be given: the work it belongs to. */
export interface CallOptions {
  /**
   * The work the request belongs to: its purpose, trigger and run id, as the request log counts
   * and reserves it, and who watches its attempts. Unset: a read, under the log's defaults.
   */
  readonly context?: RequestContext | undefined;
}

/** Options of the calls that may take part of a bounded time (v3 create, Get Certificate). */
export interface BoundedCallOptions extends WithinOptions, CallOptions {}

/** Options of the two renewal calls: when the request really leaves. */
export interface SendingOptions extends CallOptions {
  /**
   * Called as the request's bytes are handed to the socket (after the token, the request budget
   * and the connection); its last byte is held until the promise resolves, and a rejection aborts
   * it before that byte, so the service never sees a complete request. Called again on a retry
   * (the caller makes it idempotent). claimAndSend writes the ledger's "sent" here.
   */
  readonly sending?: (() => Promise<void>) | undefined;
}

/** Options of ServiceClient.renew. */
export interface RenewOptions extends WithinOptions, SendingOptions {
  /**
   * The certificate's target, when known (due list, Get Certificate). The key-vault target's
   * renewal also carries the vault token, as the vendor's renewal function sends it; unknown or
   * another target: the spec's two fields (2.2).
   */
  readonly target?: string | undefined;
}

/**
 * The operations of the Certificate Scheduling Service (spec 4.1-4.5), as certsched calls them:
 * callers never hold tokens or the API key (adapters/service/serviceClient.ts injects them).
 */
export interface ServiceOperations {
  /** 4.1: schedules creation; returns the service's plain-text message. */
  create(input: CreateCertificateInput, options?: BoundedCallOptions): Promise<string>;
  /** 4.2: schedules renewal by name; returns the service's plain-text message. */
  renew(certificateName: string, options?: RenewOptions): Promise<string>;
  /** 4.5: the service's record of one certificate. */
  get(certificateName: string, options?: BoundedCallOptions): Promise<CertificateRecord>;
  /** 4.3: the certificates due for renewal; records that fail validation are reported apart. */
  listDue(options?: CallOptions): Promise<DueList>;
  /** 4.4: renews a certificate from the due list; returns the service's message. */
  renewListed(certificate: CertificateRef, options?: SendingOptions): Promise<string>;
  /** Tests connectivity (both tokens and the service); returns the service's message. */
  test(options?: CallOptions): Promise<string>;
}
