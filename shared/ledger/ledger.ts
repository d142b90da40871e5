/**
 * Durable memory of renewal requests, one record per certificate, so a sweep knows what an
 * earlier (or a concurrent) sweep already asked for. Writes are conditional on the version read
 * (ETag): two sweeps that race for one certificate cannot both win.
 */
export type LedgerOutcome = "requesting" | "renewal-scheduled" | "failed" | "stuck";

export interface LedgerRecord {
  /** The service's certificate record id (spec 2.3). */
  readonly id: number;
  readonly certificateName: string;
  /** Expiry of the certificate when this renewal episode began; a new expiry ends the episode. */
  readonly expiryAtRequest: Date;
  /** First accepted renewal request of this episode; 24 h later a still-due certificate is stuck. */
  readonly firstRequestedAt: Date | undefined;
  /** Last renewal request sent (or being sent, while outcome is "requesting"). */
  readonly lastRequestedAt: Date | undefined;
  readonly outcome: LedgerOutcome;
  /** Renewal attempts in this episode, successful or not. */
  readonly attempts: number;
  /** Last error or message, shortened; never a secret. */
  readonly detail: string | undefined;
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
  read(id: number): Promise<LedgerEntry | undefined>;
  /**
   * Inserts when `etag` is undefined (fails if a record exists), else replaces only if the
   * stored version still matches. "conflict" means another writer got there first.
   */
  write(record: LedgerRecord, etag: string | undefined): Promise<LedgerEntry | "conflict">;
}

/** A ledger that remembers nothing: for one-off CLI runs without storage. */
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
