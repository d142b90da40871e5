import { z } from "zod";
import type { VaultEventRecord } from "../../../core/ports/vaultEvents.js";
import { eventKey, MAX_EVENT_ID } from "../../../core/vaultEvents/vaultEvent.js";
import { ValidationError } from "../../../lib/errors.js";
import { redactRecordStrings } from "../../../lib/redact/redactStrings.js";
import { boundDetail } from "../../../lib/text/boundDetail.js";
import { parseOrThrow } from "../../../lib/zodProblems.js";
import { nameKey } from "../nameKey.js";
import { instant } from "./rowText.js";

/**
 * The Key Vault events store's rows (table certschedvaultevents), and the mappers both ways.
 * Keys: the account's name key is the partition, the event key's name key the row key (an event
 * key holds "/", which a key may not). A row read back is input like any other: validated, and
 * it must be the row its keys stand for.
 */

/** Longest outcome kept (one line, escaped). */
export const MAX_OUTCOME = 500;
/** Longest vault, certificate name or version a row holds (Key Vault's own bounds are lower). */
const MAX_NAME = 1_000;

export interface VaultEventRow {
  partitionKey: string;
  rowKey: string;
  account: string;
  /** The event key whole (the row key may be its hash). */
  key: string;
  kind: string;
  vaultName: string;
  certificateName: string;
  version: string;
  eventId: string;
  claimedAt: string;
  /** When the claim's lease runs out; "" when no claim is held. */
  leaseUntil: string;
  doneAt?: string;
  outcome?: string;
}

export const vaultEventPartition = (account: string) => nameKey(account);
export const vaultEventRowKey = (key: string) => nameKey(key);

/** The outcome as kept: control characters escaped, at most MAX_OUTCOME characters. */
export const outcomeText = (outcome: string) => boundDetail(outcome, MAX_OUTCOME);

/**
 * A new claim's row: the record, its lease running until `leaseUntil`. A RangeError when the
 * record's key is not its event's (it would never be found under it again).
 */
export function toVaultEventRow(
  account: string,
  record: Omit<VaultEventRecord, "doneAt" | "outcome">,
  leaseUntil: Date,
): VaultEventRow {
  if (record.key !== eventKey(record)) throw new RangeError("a record's key must be its eventKey");
  return {
    partitionKey: vaultEventPartition(account),
    rowKey: vaultEventRowKey(record.key),
    account,
    key: record.key,
    kind: record.kind,
    vaultName: record.vaultName,
    certificateName: record.certificateName,
    version: record.version,
    eventId: record.eventId,
    claimedAt: record.claimedAt.toISOString(),
    leaseUntil: leaseUntil.toISOString(),
  };
}

const name = z.string().min(1).max(MAX_NAME);

const rowSchema = z.object({
  partitionKey: z.string(),
  rowKey: z.string(),
  account: z.string().min(1, { message: "must not be empty" }),
  key: z
    .string()
    .min(1)
    .max(4 * MAX_NAME),
  kind: z.enum(["new-version", "near-expiry", "expired"]),
  vaultName: name,
  certificateName: name,
  version: name,
  eventId: z.string().min(1).max(MAX_EVENT_ID),
  claimedAt: instant,
  leaseUntil: z.union([z.literal(""), instant]).optional(),
  doneAt: z.union([z.literal(""), instant]).optional(),
  outcome: z.string().max(MAX_OUTCOME).optional(),
});

/** A record as read back, with its lease (not part of what callers see). */
export interface StoredVaultEvent {
  readonly record: VaultEventRecord;
  /** When the claim's lease runs out; undefined: no claim held. */
  readonly leaseUntil?: Date | undefined;
}

/** A stored row; throws a ValidationError naming each field that is not right. */
export function fromVaultEventRow(
  stored: Record<string, unknown>,
  table: string,
): StoredVaultEvent {
  const what = `vault event row ${String(stored.rowKey).slice(0, 200)} in table ${table}`;
  const r = parseOrThrow(rowSchema, redactRecordStrings(stored), what);
  // A row filed under other keys than its own would be read as another event's, or account's.
  const wrong = (field: string, message: string) =>
    new ValidationError(what, [{ name: field, message }]);
  if (r.partitionKey !== vaultEventPartition(r.account)) {
    throw wrong("account", "must be the account the partition key stands for");
  }
  if (r.key !== eventKey(r) || r.rowKey !== vaultEventRowKey(r.key)) {
    throw wrong("key", "must be the event's key, which the row key stands for");
  }
  const record: VaultEventRecord = {
    key: r.key,
    kind: r.kind,
    vaultName: r.vaultName,
    certificateName: r.certificateName,
    version: r.version,
    eventId: r.eventId,
    claimedAt: r.claimedAt,
    ...(r.doneAt instanceof Date ? { doneAt: r.doneAt } : {}),
    ...(r.doneAt instanceof Date && r.outcome !== undefined ? { outcome: r.outcome } : {}),
  };
  return r.leaseUntil instanceof Date ? { record, leaseUntil: r.leaseUntil } : { record };
}
