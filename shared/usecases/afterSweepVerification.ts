import type { Trigger } from "../core/history/events.js";
import type { Inventory, InventoryRecord } from "../core/ports/inventory.js";
import { ACCEPTED_OUTCOMES, type Ledger } from "../core/ports/ledger.js";
import type { Settings } from "../core/settings.js";
import type { InventoryVerification } from "../core/verification/inventoryResult.js";
import { ensureError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";

/**
 * After each sweep: verify what earlier sweeps renewed once
 * CERTSCHED_VERIFY_WINDOW has passed since the service accepted it, and until it is verified ok.
 * This sweep's own renewals are too fresh: the next sweep (or the hourly timer) looks at them.
 */

/** Ledger reads at a time: each is one Table storage point read. */
const READ_CONCURRENCY = 8;

/** What the sweep's summary carries about its verification of earlier renewals. */
export interface AfterSweepVerification {
  /** The certificates checked, by name. */
  readonly names: readonly string[];
  readonly failed: boolean;
  readonly counts: Readonly<Record<string, number>>;
  /** One line per certificate that needs a person. */
  readonly problems: readonly string[];
}

/** Whether the record was verified ok after the renewal was accepted. */
function verifiedOkSince(record: InventoryRecord, acceptedAt: Date): boolean {
  const v = record.lastVerification;
  return v !== undefined && v.status === "ok" && v.at.getTime() >= acceptedAt.getTime();
}

/**
 * The inventory's certificates whose renewal the ledger holds as accepted at least `windowMs`
 * before `now` and that no verification has found ok since. A ledger that cannot be read for
 * one certificate leaves that one out (the hourly timer still covers it).
 */
export async function renewedToVerify(
  records: readonly InventoryRecord[],
  ledger: Ledger,
  options: { readonly now: Date; readonly windowMs: number; readonly log: Logger },
): Promise<string[]> {
  if (ledger.kind === "none") return [];
  const candidates = records.filter((r) => r.id !== undefined);
  const due: boolean[] = new Array(candidates.length).fill(false);
  let next = 0;
  let unreadable = 0;
  const worker = async () => {
    while (next < candidates.length) {
      const i = next++;
      const record = candidates[i] as InventoryRecord;
      try {
        const entry = await ledger.read(record.id as number);
        const row = entry?.record;
        const acceptedAt = row?.lastRequestedAt;
        due[i] =
          row !== undefined &&
          ACCEPTED_OUTCOMES.has(row.outcome) &&
          acceptedAt !== undefined &&
          // The window has passed: at exactly windowMs the renewal counts as due to have landed.
          options.now.getTime() - acceptedAt.getTime() >= options.windowMs &&
          !verifiedOkSince(record, acceptedAt);
      } catch {
        unreadable += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, candidates.length) }, worker));
  if (unreadable > 0) {
    options.log.warn(
      `certsched could not read the ledger for ${unreadable} certificate(s) after the sweep; the verification timer checks them`,
    );
  }
  return candidates.filter((_, i) => due[i]).map((r) => r.certificateName);
}

/** What choosing the renewals to verify needs; the AccountPorts (app/services.ts) satisfies it. */
export interface AfterSweepPorts {
  /** CERTSCHED_VERIFY_WINDOW comes from `verify()`. */
  readonly settings: Pick<Settings, "verify">;
  readonly ledger: Ledger;
  readonly inventory: Pick<Inventory, "list">;
  readonly now: () => Date;
}

export interface AfterSweepOptions {
  readonly trigger: Trigger;
  /** The sweep's deadline: no verification starts after it. */
  readonly deadline: AbortSignal;
  /** Verifies the names (verifyWith, scope "after-sweep"). */
  readonly verify: (names: readonly string[]) => Promise<InventoryVerification>;
}

/**
 * Verifies the earlier renewals due to have landed; undefined when there were none, or nothing
 * could be done (each reason logged). Never throws: the sweep's own outcome stays its own.
 */
export async function verifyAfterSweep(
  ports: AfterSweepPorts,
  log: Logger,
  options: AfterSweepOptions,
): Promise<AfterSweepVerification | undefined> {
  try {
    if (options.deadline.aborted) {
      log.warn(
        "certsched skipped verifying earlier renewals: the sweep's deadline has passed (the verification timer checks them)",
      );
      return undefined;
    }
    const { windowMs } = ports.settings.verify();
    const { items } = await ports.inventory.list();
    const names = await renewedToVerify(items, ports.ledger, {
      now: ports.now(),
      windowMs,
      log,
    });
    if (names.length === 0) return undefined;
    const v = await options.verify(names);
    return { names, failed: v.failed, counts: v.counts, problems: v.problems };
  } catch (error) {
    log.warn(
      `certsched could not verify earlier renewals after the sweep (the sweep is unaffected): ${redact(ensureError(error).message)}`,
    );
    return undefined;
  }
}
