import { recordWarnings } from "../../core/certificate/recordWarnings.js";
import {
  fromServiceRecord,
  type RememberPorts,
  remember,
} from "../../core/inventory/fromRecords.js";
import type { DueList } from "../../core/ports/service.js";
import { listedOnce } from "../../core/renewal/listedOnce.js";
import type { Logger } from "../../lib/log.js";
import { describe } from "./renewOne.js";
import type { SweepCalls } from "./sweepCalls.js";
import type { SweepRun } from "./sweepRun.js";

/** The list stage's answer: the due list, or why there is none. */
export type Listing =
  | { readonly kind: "listed"; readonly due: DueList }
  | { readonly kind: "failed"; readonly error: string };

/**
 * Lists what is due. The listed records are written to the inventory at once, beside the
 * renewals (they carry what verification needs: rootDomain, the vault), so a run cut short
 * still has them; `inventoryWrite` is that write, awaited by the bookkeeping. With a run budget,
 * the list's size moves the stop (core/renewal/runBudget.ts). Never throws: a failed list is
 * the run's problem and the summary's `listError`.
 */
export async function listDue(
  run: SweepRun,
  calls: SweepCalls,
  inventory: RememberPorts,
  log: Logger,
): Promise<{ readonly listing: Listing; readonly inventoryWrite: Promise<boolean> }> {
  let due: DueList;
  try {
    due = await calls.listDue();
  } catch (error) {
    const message = describe(error).detail;
    run.problems.push(message);
    log.error(`certsched sweep could not list certificates: ${message}`);
    return { listing: { kind: "failed", error: message }, inventoryWrite: Promise.resolve(true) };
  }
  run.listed(due.certificates.length);
  const seenAt = inventory.now();
  const rows = due.certificates.map((r) => fromServiceRecord(r, "due-list", seenAt));
  const inventoryWrite = remember(inventory, log, rows);
  const once = listedOnce(due);
  // Fields certsched keeps but does not read, in a type the spec does not document: once a sweep.
  for (const warning of recordWarnings(once.certificates)) log.warn(`certsched: ${warning}`);
  return { listing: { kind: "listed", due: once }, inventoryWrite };
}
