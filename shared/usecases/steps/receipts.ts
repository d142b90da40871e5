import type { CertificateEvent, Trigger } from "../../core/history/events.js";
import type { InventoryRecord, VerificationRecord } from "../../core/ports/inventory.js";
import type { AcceptedRenewal } from "../../core/verification/judge.js";
import { closeReceipt, judgedRenewal, openReceipt } from "../../core/verification/receipt.js";
import { landedDetail, type Receipt } from "../../core/verification/served.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * A verification run's receipts: opened before the reads (the fingerprint
 * served before each accepted renewal goes to the judgement), closed after them (kept with the
 * reading; a `landed` event the first time a different certificate is served).
 */

export interface OpenedReceipts {
  /** By certificate name. */
  readonly receipts: ReadonlyMap<string, Receipt | undefined>;
  /** The ledger's accepted renewals, each with the fingerprint served before it when known. */
  readonly renewals: ReadonlyMap<string, AcceptedRenewal>;
}

export function openReceipts(
  records: readonly InventoryRecord[],
  renewals: ReadonlyMap<string, AcceptedRenewal>,
): OpenedReceipts {
  const receipts = new Map<string, Receipt | undefined>();
  const judged = new Map<string, AcceptedRenewal>();
  for (const record of records) {
    const renewal = renewals.get(record.certificateName);
    const receipt = openReceipt(record.lastVerification, renewal);
    receipts.set(record.certificateName, receipt);
    if (renewal) judged.set(record.certificateName, judgedRenewal(renewal, receipt));
  }
  return { receipts, renewals: judged };
}

/** One record's reading, as verifyInventory keeps it (its verification is replaced here). */
interface Entry {
  readonly record: InventoryRecord;
  verification: VerificationRecord;
  readonly named: boolean;
}

/**
 * Closes each record's receipt with its reading (the receipt is stored with it) and returns the
 * `landed` events: one per renewal, the first time a different certificate is read.
 */
export function closeReceipts(
  entries: Iterable<Entry>,
  opened: OpenedReceipts,
  run: { readonly trigger: Trigger; readonly runId: string },
): CertificateEvent[] {
  const events: CertificateEvent[] = [];
  for (const entry of entries) {
    const name = entry.record.certificateName;
    const { receipt, landing } = closeReceipt(opened.receipts.get(name), entry.verification);
    if (receipt) entry.verification = { ...entry.verification, receipt };
    if (!landing || !entry.named) continue;
    const what =
      entry.verification.source === "keyvault"
        ? "the vault's current version"
        : "the served certificate";
    events.push({
      at: landing.at,
      certificateName: name,
      id: entry.record.id,
      event: "landed",
      trigger: run.trigger,
      runId: run.runId,
      reason: entry.verification.status,
      detail: boundDetail(
        landedDetail(landing.before, landing.after, landing.at).replace(
          "the served certificate",
          what,
        ),
      ),
      expiryDate: entry.record.serviceExpiry,
      before: landing.before,
      after: landing.after,
    });
  }
  return events;
}
