import { DAY_MS } from "../../lib/time.js";
import type { Read } from "../ports/history.js";
import type { InventoryRecord } from "../ports/inventory.js";
import { ACCEPTED_OUTCOMES, type LedgerRecord } from "../ports/ledger.js";

/** The service lists a certificate for renewal 20 days before it expires (spec 4.3). */
export const DUE_WINDOW_MS = 20 * DAY_MS;

/** Where the need is read from: the inventory's records and the ledger's rows. */
export interface NeedSources {
  inventory(): Promise<Read<InventoryRecord>>;
  ledgerRows(): Promise<Read<LedgerRecord>>;
}

/**
 * Requests due renewals will need in the quota window, which reads may never take:
 * one renewal for each certificate certsched knows that is due now or becomes due within the
 * window (its expiry at most 20 days plus the window away, expired ones included) and whose
 * renewal for that expiry the ledger does not show accepted, plus one list for the sweep that
 * will renew them. Erring high only holds reads back, never a renewal: a certificate the
 * inventory still holds after it left the service counts until the inventory forgets it, and
 * a renewal's retries and later sweeps' lists come out of the 20 % reads never reach.
 */
export function renewalNeed(
  inventory: readonly InventoryRecord[],
  ledger: readonly LedgerRecord[],
  now: Date,
  windowMs: number,
): number {
  const horizon = now.getTime() + DUE_WINDOW_MS + windowMs;
  const accepted = new Set(
    ledger
      .filter((r) => ACCEPTED_OUTCOMES.has(r.outcome))
      .map((r) => `${r.certificateName}\u0000${r.expiryAtRequest.getTime()}`),
  );
  let pending = 0;
  for (const record of inventory) {
    const expiry = record.serviceExpiry?.getTime();
    if (expiry === undefined || expiry > horizon) continue;
    if (accepted.has(`${record.certificateName}\u0000${expiry}`)) continue;
    pending += 1;
  }
  return pending + 1;
}

/**
 * The need read from storage. A source that cannot be read counts as the worst case the read
 * can be given: every request of the budget (the read is held back, never a renewal).
 */
export async function readRenewalNeed(
  sources: NeedSources,
  now: Date,
  quota: { readonly requests: number; readonly windowMs: number },
): Promise<number> {
  try {
    const [inventory, ledger] = await Promise.all([sources.inventory(), sources.ledgerRows()]);
    return renewalNeed(inventory.items, ledger.items, now, quota.windowMs);
  } catch {
    return quota.requests;
  }
}
