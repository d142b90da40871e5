import type { VaultEventRecord, VaultEventStore } from "../../../core/ports/vaultEvents.js";
import { eventKey } from "../../../core/vaultEvents/vaultEvent.js";
import { outcomeText } from "../rows/vaultEventRow.js";

interface Kept {
  record: VaultEventRecord;
  /** When the claim's lease runs out; undefined: no claim held. */
  leaseUntil?: Date | undefined;
}

/**
 * The Key Vault events store in process (no storage configured: tests, the sandbox): the table's
 * rules (tableVaultEvents.ts), each account's records apart. Claims are taken synchronously, so
 * two racing deliveries in this process cannot both get one.
 */
export function memoryVaultEventStore(): VaultEventStore {
  const kept = new Map<string, Kept>();
  const at = (account: string, key: string) => JSON.stringify([account, key]);
  return {
    kind: "memory",
    claim: async (account, record, leaseMs) => {
      if (record.key !== eventKey(record)) {
        throw new RangeError("a record's key must be its eventKey");
      }
      const leaseUntil = new Date(record.claimedAt.getTime() + leaseMs);
      const held = kept.get(at(account, record.key));
      if (held?.record.doneAt) return "done";
      if (held?.leaseUntil && held.leaseUntil.getTime() > record.claimedAt.getTime()) return "held";
      // Taken again after a delivery died: the first claim's id and time stay.
      if (held) held.leaseUntil = leaseUntil;
      else kept.set(at(account, record.key), { record: { ...record }, leaseUntil });
      return "claimed";
    },
    complete: async (account, key, outcome, doneAt) => {
      const held = kept.get(at(account, key));
      if (!held) return;
      held.record = { ...held.record, doneAt, outcome: outcomeText(outcome) };
      held.leaseUntil = undefined;
    },
    release: async (account, key) => {
      const held = kept.get(at(account, key));
      if (held) held.leaseUntil = undefined;
    },
    list: async (account, since) => {
      const items = [...kept.entries()]
        .filter(([where, k]) => where === at(account, k.record.key))
        .map(([, k]) => k.record)
        .filter((r) => r.claimedAt.getTime() >= since.getTime())
        .sort((a, b) => b.claimedAt.getTime() - a.claimedAt.getTime());
      return { items, invalid: [] };
    },
  };
}
