import type { Logger } from "../../lib/log.js";
import type { VaultEventKind } from "../vaultEvents/vaultEvent.js";
import type { Read } from "./history.js";

/**
 * What the Key Vault events need besides the vault and verification: a store that makes each
 * event's work happen once across deliveries and instances, and a queue that brings a vault
 * certificate's consumer check back later.
 */

/** One event's work as the store keeps it (per account). */
export interface VaultEventRecord {
  /** core/vaultEvents/vaultEvent.ts eventKey: `{vault}/{certificate}/{version}/{kind}`, lower-case. */
  readonly key: string;
  readonly kind: VaultEventKind;
  readonly vaultName: string;
  readonly certificateName: string;
  readonly version: string;
  /** The event's id (the first delivery's). */
  readonly eventId: string;
  readonly claimedAt: Date;
  /** Set once the work is over. */
  readonly doneAt?: Date | undefined;
  /** What was done, one line (escaped, bounded): "consumers serve it", "rechecking until ...". */
  readonly outcome?: string | undefined;
}

export type ClaimResult =
  /** This caller does the work. */
  | "claimed"
  /** The work is done already. */
  | "done"
  /** Another delivery holds it (its lease has not run out). */
  | "held";

/**
 * Writes may throw CertschedError("STORAGE_UNAVAILABLE"). "memory" keeps claims for the process
 * (no storage configured): duplicates within it are still told.
 */
export interface VaultEventStore {
  readonly kind: "table" | "memory";
  /**
   * Claims one event's work for `leaseMs`: "claimed" when no record exists, or the one that does
   * is not done and its lease ran out (a delivery that died); ETag-guarded, so two racing
   * deliveries cannot both claim.
   */
  claim(
    account: string,
    record: Omit<VaultEventRecord, "doneAt" | "outcome">,
    leaseMs: number,
  ): Promise<ClaimResult>;
  /** Marks the work done with its outcome. */
  complete(account: string, key: string, outcome: string, at: Date): Promise<void>;
  /** Gives a claim back (the work failed; the redelivery does it). */
  release(account: string, key: string): Promise<void>;
  /** The account's records claimed since `since`, newest first. */
  list(account: string, since: Date): Promise<Read<VaultEventRecord>>;
}

/** A later check of a vault certificate's consumers (the queue's message). */
export interface RecheckMessage {
  readonly account: string;
  readonly vaultName: string;
  /** The certificate's name in the vault. */
  readonly certificateName: string;
  /** The version the consumers must serve; a newer current version ends the rechecks. */
  readonly version: string;
  /** The inventory's names of the certificates (and watched endpoints) bound to it. */
  readonly names: readonly string[];
  /** ISO-8601: the end of the sync window (the version's creation + CERTSCHED_SYNC_WINDOW). */
  readonly until: string;
  /** 1 for the first recheck. */
  readonly attempt: number;
}

export interface RecheckQueue {
  /** "storage": the app's queue (a queue trigger delivers); "inline": a timer in this process. */
  readonly kind: "storage" | "inline";
  /** Sends the message, visible after `delayMs`; throws STORAGE_UNAVAILABLE when it cannot. */
  send(message: RecheckMessage, delayMs: number, log: Logger): Promise<void>;
}

/** The recheck queue's name (created by infra/, read by the queue trigger). */
export const RECHECK_QUEUE = "certsched-vault-rechecks";
