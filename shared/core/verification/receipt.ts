import type { VerificationRecord } from "../ports/inventory.js";
import type { AcceptedRenewal } from "./judge.js";
import { factsOf, type Receipt, type ServedFacts, sameCertificate } from "./served.js";

/**
 * The receipt's rules, applied by each verification run: which reading is
 * "before" a renewal, when the renewal landed. The receipt rides on the inventory row's last
 * verification, so a later run in another process knows what was served before.
 */

/**
 * The receipt a run starts with for a certificate: the stored one when it is about this very
 * acceptance; else a new one, whose `before` is the last reading when it was taken no later than
 * the acceptance (a reading after it may already show the renewed certificate). With no renewal
 * accepted, the stored one is kept as it is (history and the detail page show it).
 */
export function openReceipt(
  last: VerificationRecord | undefined,
  renewal: AcceptedRenewal | undefined,
): Receipt | undefined {
  const stored = last?.receipt;
  if (renewal === undefined) return stored;
  if (stored && stored.acceptedAt.getTime() === renewal.acceptedAt.getTime()) return stored;
  const before =
    last && last.at.getTime() <= renewal.acceptedAt.getTime() ? factsOf(last) : undefined;
  return { acceptedAt: renewal.acceptedAt, ...(before ? { before } : {}) };
}

/** The renewal as judged: with the fingerprint served before it, when the receipt knows it. */
export function judgedRenewal(renewal: AcceptedRenewal, receipt: Receipt | undefined) {
  const before = receipt?.before?.thumbprint;
  return before === undefined ? renewal : { ...renewal, beforeThumbprint: before };
}

/** A landing: the certificate served before the renewal, and the different one served now. */
export interface Landing {
  readonly before: ServedFacts;
  readonly after: ServedFacts;
  readonly at: Date;
}

/**
 * The receipt after a reading, and the landing when this reading is the first to show a
 * certificate other than the one served before. A certificate that does not cover the name
 * (`mismatch`) is not the renewed one: no landing. Once landed, later readings change nothing.
 */
export function closeReceipt(
  receipt: Receipt | undefined,
  reading: VerificationRecord,
): { readonly receipt: Receipt | undefined; readonly landing?: Landing } {
  const before = receipt?.before;
  if (!receipt || !before || receipt.landedAt || reading.status === "mismatch") return { receipt };
  const after = factsOf(reading);
  if (!after || sameCertificate(after.thumbprint, before.thumbprint)) return { receipt };
  return {
    receipt: { ...receipt, after, landedAt: reading.at },
    landing: { before, after, at: reading.at },
  };
}
