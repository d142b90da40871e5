import { instantText, type ServedFacts, shortPrint } from "../verification/served.js";
import type { CertificateEvent } from "./events.js";

/**
 * The receipt of each renewal, read from a certificate's history: the
 * served certificate before it was accepted (`renewal-scheduled`'s `before`) and the one that
 * replaced it (`landed`'s `after`), for `certsched history <name>` and the certificate's detail.
 */

export interface RenewalReceipt {
  readonly certificateName: string;
  /** When the renewal was recorded accepted; undefined for a landing whose acceptance is older than the events read. */
  readonly acceptedAt?: Date | undefined;
  readonly before?: ServedFacts | undefined;
  readonly after?: ServedFacts | undefined;
  /** When a verification first read the new certificate. */
  readonly changedAt?: Date | undefined;
}

/** One receipt per renewal, newest first, from events of any order (per certificate). */
export function renewalReceipts(events: readonly CertificateEvent[]): RenewalReceipt[] {
  const oldestFirst = [...events].sort((a, b) => a.at.getTime() - b.at.getTime());
  const open = new Map<string, RenewalReceipt>();
  const receipts: RenewalReceipt[] = [];
  for (const e of oldestFirst) {
    if (e.event === "renewal-scheduled") {
      const receipt = { certificateName: e.certificateName, acceptedAt: e.at, before: e.before };
      receipts.push(receipt);
      open.set(e.certificateName, receipt);
    } else if (e.event === "landed") {
      const started = open.get(e.certificateName);
      const landed = {
        certificateName: e.certificateName,
        acceptedAt: started?.acceptedAt,
        before: e.before ?? started?.before,
        after: e.after,
        changedAt: e.at,
      };
      if (started) receipts[receipts.indexOf(started)] = landed;
      else receipts.push(landed);
      open.delete(e.certificateName);
    }
  }
  return receipts.reverse();
}

const shown = (f: ServedFacts) =>
  `${shortPrint(f.thumbprint)}${f.notAfter ? ` (expires ${instantText(f.notAfter)})` : ""}`;

/** The receipt in one line for people. */
export function receiptSentence(r: RenewalReceipt): string {
  if (r.after && r.before && r.changedAt) {
    return `served certificate changed from ${shown(r.before)} to ${shown(r.after)} at ${instantText(r.changedAt)}`;
  }
  if (!r.before) return "served certificate before the renewal not known";
  const still = `still ${shortPrint(r.before.thumbprint)}${r.before.notAfter ? `, expires ${instantText(r.before.notAfter)}` : ""}`;
  return `served certificate has not changed since the renewal was accepted at ${r.acceptedAt ? instantText(r.acceptedAt) : "?"} (${still})`;
}

/** A receipt as answered (JSON): dates ISO-8601, and its sentence. */
export interface ReceiptView {
  readonly acceptedAt?: string;
  readonly before?: ServedFacts;
  readonly after?: ServedFacts;
  readonly changedAt?: string;
  readonly text: string;
}

export function receiptView(r: RenewalReceipt): ReceiptView {
  return {
    ...(r.acceptedAt ? { acceptedAt: r.acceptedAt.toISOString() } : {}),
    ...(r.before ? { before: r.before } : {}),
    ...(r.after ? { after: r.after } : {}),
    ...(r.changedAt ? { changedAt: r.changedAt.toISOString() } : {}),
    text: receiptSentence(r),
  };
}
