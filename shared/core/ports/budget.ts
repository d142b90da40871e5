import type { Trigger } from "../history/events.js";
import type { RequestOperation, RequestPurpose } from "../quota/requestContext.js";
import type { ServiceQuota } from "../quota/serviceQuota.js";

/** Who used the requests of the window, for the message that says why one was refused. */
export interface QuotaUsage {
  readonly quota: ServiceQuota;
  /** Rows counted in the window (at most limit + 1: the count stops once it is over). */
  readonly used: number;
  /** Of them: reads and tests (Get Certificate, the due list, the connectivity test). */
  readonly reads: number;
  /** Of them: renewal requests of the run asking (its list, its renewals). */
  readonly thisRun: number;
  /** Of them: renewal requests of other runs and processes, and rows kept before requests carried a purpose. */
  readonly others: number;
  /** When the oldest counted request leaves the window, in ms from now (storage clock). */
  readonly freesInMs?: number | undefined;
}

/** What a reservation is for: stored with its row. */
export interface ReservationInput {
  readonly operation: RequestOperation;
  readonly trigger: Trigger;
  readonly purpose: RequestPurpose;
  /** The run (or process) the request belongs to. */
  readonly runId: string;
}

/** A granted reservation: settle it once the attempt is over. */
export interface Reservation {
  /** `sent`: the attempt may have reached the service (the row stays); else it is released. */
  settle(sent: boolean): Promise<void>;
}

export interface SharedBudget {
  /** Reserves one request; throws QuotaExhaustedError when refused (nothing was sent). */
  reserve(input: ReservationInput): Promise<Reservation>;
  /**
   * The window's use as `runId` sees it, on the storage clock of the last reservation made here
   * (plus the time since, on this host's monotonic clock); undefined before any reservation.
   */
  usage(runId: string): Promise<QuotaUsage | undefined>;
}
