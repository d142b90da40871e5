import type { CertificateRecord } from "../../core/certificate/records.js";
import type { PoolSlot } from "../../core/concurrency/adaptivePool.js";
import type { DueList, RequestContext, ServiceOperations } from "../../core/ports/service.js";
import type { AttemptObserver } from "../../lib/http/attemptObserver.js";
import type { SendRenewal } from "./renewOne.js";
import { retryThrottled } from "./throttledRetry.js";

/** The service operations a sweep calls. */
export type SweepClient = Pick<ServiceOperations, "listDue" | "renewListed">;

/** How one certificate's renewal is sent, as its turn in the pool asks for it. */
export interface RenewalCall {
  /** Told of every attempt, retries included (adaptive concurrency); unset: nobody. */
  readonly observer?: AttemptObserver | undefined;
  /** The renewal's place in the pool, given back while a 429 is waited out. */
  readonly slot?: PoolSlot | undefined;
  /** Before each round after a 429 (the renewal starts again). */
  readonly onRetry?: (() => void) | undefined;
}

/** What a sweep asks of the service: its list, and each certificate's renewal. */
export interface SweepCalls {
  listDue(): Promise<DueList>;
  /**
   * The send of one certificate's renewal: given the `sending` hook (called as the request's
   * bytes leave, its last byte held until it resolves), it sends and answers the service's text.
   */
  renewal(certificate: CertificateRecord, call: RenewalCall): SendRenewal;
}

/**
 * The one place a sweep's requests are made: each carries the run's request context (a
 * renewal's purpose, the run's trigger and id), a renewal also its observer and its `sending`
 * hook, and a renewal the service answers 429 is asked again until the run's deadline.
 */
export function sweepCalls(
  client: SweepClient,
  context: RequestContext,
  deadline: AbortSignal,
): SweepCalls {
  return {
    listDue: () => client.listDue({ context }),
    renewal: (certificate, call) => {
      const withObserver = call.observer ? { ...context, observer: call.observer } : context;
      const retry = { slot: call.slot, deadline, onRetry: call.onRetry };
      return (sending) =>
        retryThrottled(
          () => client.renewListed(certificate, { sending, context: withObserver }),
          retry,
        );
    },
  };
}
