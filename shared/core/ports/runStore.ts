import type { Run, RunState } from "../runs/run.js";

/** Who holds an idempotency key: the run it was first used for, and for which request. */
export interface KeyEntry {
  readonly runId: string;
  readonly dryRun: boolean;
  /** When the key was first used; it names its run for IDEMPOTENCY_WINDOW_MS from then. */
  readonly at: Date;
}

/** Options of RunStore.save. */
export interface SaveOptions {
  /** Write only if the stored run is in this state (a run not stored is not created). */
  readonly onlyIf?: RunState | undefined;
  /** Write only if the stored run was never sent again (resentAt unset): one resend, ever. */
  readonly onlyIfNotResent?: boolean | undefined;
}

/** Either this request now holds the key, or another one did within the window. */
export type KeyClaim =
  | { readonly claimed: true }
  | { readonly claimed: false; readonly entry: KeyEntry };

/**
 * Where runs live: one record per runId, and the idempotency keys. Every method throws
 * RUNS_UNAVAILABLE (a CertschedError, retriable) when the storage fails.
 */
export interface RunStore {
  readonly kind: "table" | "memory";
  /** The run, or undefined when no run has that id. */
  get(runId: string): Promise<Run | undefined>;
  /**
   * Writes the whole run (created or replaced), unless the stored one is further along
   * (`advances`): a finished run is never written again, nothing moves back to queued or
   * running. Such a write is dropped without an error; atomic against concurrent writers. With
   * `onlyIf`, written only over a stored run in that state (never created).
   */
  save(run: Run, options?: SaveOptions): Promise<void>;
  /**
   * Files `entry` under `keyHash` unless a live entry (younger than `windowMs` at `now`) is
   * there already; an expired entry is replaced. Atomic: of two requests with one key, one wins.
   */
  claimKey(keyHash: string, entry: KeyEntry, now: Date, windowMs: number): Promise<KeyClaim>;
  /** Drops the key's entry if it still names `runId` (its run could not be queued). */
  releaseKey(keyHash: string, runId: string): Promise<void>;
  /**
   * Runs not finished (queued or running), at most `limit`, for the daily pass that moves on
   * those that never will by themselves (settleRun). A row that cannot be read is left out.
   */
  listUnfinished(limit: number): Promise<Run[]>;
  /**
   * Removes runs requested, and keys first used, before `cutoff` (the history's retention:
   * CERTSCHED_HISTORY_RETENTION); resolves with how many rows went. A run from exactly
   * `cutoff` stays.
   */
  removeBefore(cutoff: Date): Promise<number>;
  /**
   * Notes how an account's credentials fared in a run that just finished: refused at
   * `refusedAt`, the start of the unbroken stretch of refusals is kept (`refusedAt` when there
   * was none) and returned; `undefined` (accepted), the stretch ends. Unset: no stretch is kept.
   */
  noteRefusal?(account: string, refusedAt: Date | undefined): Promise<Date | undefined>;
}
