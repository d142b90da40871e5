/**
 * Durable memory of renewal requests, one record per certificate, so a sweep knows what an
 * earlier (or a concurrent) sweep already asked for. Writes are conditional on the version read
 * (ETag): two sweeps that race for one certificate cannot both win.
 *
 * A renewal moves through the states below. The two writes before the request is sent
 * ("claimed", then "sent") are what tell "nothing was sent" from "sent, answer unknown" after a
 * crash: a sweep sends only after its "sent" write won, so a row left "claimed" proves no
 * request left, and a row left "sent" means one may have.
 */
export type LedgerOutcome =
  /** A sweep holds the certificate and has not sent the request yet (see `claimedAt`). */
  | "claimed"
  /** The request is being sent; a row left here means the sweep stopped before the answer. */
  | "sent"
  /** The service accepted the renewal. */
  | "renewal-scheduled"
  /** Sent, but no answer in time: the service may have scheduled it. */
  | "answer-unknown"
  /** The service refused, or the request failed before it could be acted on: nothing ordered. */
  | "failed"
  /** A stuck certificate was asked for again and the service accepted. */
  | "stuck";

/** Outcomes in which the service accepted a renewal (answered 2xx): verification's window runs. */
export const ACCEPTED_OUTCOMES: ReadonlySet<LedgerOutcome> = new Set([
  "renewal-scheduled",
  "stuck",
]);

export const LEDGER_OUTCOMES: readonly LedgerOutcome[] = [
  "claimed",
  "sent",
  "renewal-scheduled",
  "answer-unknown",
  "failed",
  "stuck",
];

export interface LedgerRecord {
  /** The service's certificate record id (spec 2.3). */
  readonly id: number;
  readonly certificateName: string;
  /** Expiry of the certificate when this renewal episode began; a new expiry ends the episode. */
  readonly expiryAtRequest: Date;
  /** First request sent in this episode; 24 h later a still-due certificate is stuck. */
  readonly firstRequestedAt: Date | undefined;
  /** Last request sent (from the "sent" write on); a claim not yet sent does not move it. */
  readonly lastRequestedAt: Date | undefined;
  readonly outcome: LedgerOutcome;
  /** Requests sent in this episode, accepted or not. */
  readonly attempts: number;
  /** Last error or message, shortened; never a secret. */
  readonly detail: string | undefined;
  /** When the latest claim was written; with "claimed", the start of its lease. */
  readonly claimedAt?: Date | undefined;
  /** The decision's reason constant for the latest request (decide.ts VerdictReason). */
  readonly reason?: string | undefined;
  /**
   * The run (the sweep's runId) that made the latest claim; none for a person's renewal. A run
   * delivered again after its attempt died tells its own renewals from another run's by it.
   */
  readonly runId?: string | undefined;
}

export interface LedgerEntry {
  readonly record: LedgerRecord;
  /** Opaque version for conditional writes. */
  readonly etag: string;
}

export interface Ledger {
  /** "none": no storage configured; every certificate looks new each sweep. */
  readonly kind: "table" | "memory" | "none";
  /** Makes sure the store is usable (creates the table); throws LEDGER_UNAVAILABLE if not. */
  open(): Promise<void>;
  /**
   * The stored record, or undefined when there is none. Throws LEDGER_UNAVAILABLE when the store
   * cannot be read, and a ValidationError naming the fields when the stored row is not a record
   * this version can trust.
   */
  read(id: number): Promise<LedgerEntry | undefined>;
  /**
   * Inserts when `etag` is undefined (fails if a record exists), else replaces only if the
   * stored version still matches. "conflict" means another writer got there first.
   */
  write(record: LedgerRecord, etag: string | undefined): Promise<LedgerEntry | "conflict">;
}

/** A ledger that remembers nothing: for sweeps run without storage on purpose. */
export const noLedger: Ledger = {
  kind: "none",
  open: async () => {},
  read: async () => undefined,
  write: async (record) => ({ record, etag: "none" }),
};

/** In-process ledger with the same conditional-write rules (the sandbox, the benchmark). */
export function memoryLedger(): Ledger {
  const rows = new Map<number, LedgerEntry>();
  let version = 0;
  return {
    kind: "memory",
    open: async () => {},
    read: async (id) => rows.get(id),
    write: async (record, etag) => {
      const current = rows.get(record.id);
      if ((etag === undefined && current) || (etag !== undefined && current?.etag !== etag)) {
        return "conflict";
      }
      version += 1;
      const entry = { record, etag: `m${version}` };
      rows.set(record.id, entry);
      return entry;
    },
  };
}
