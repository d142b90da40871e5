import { type Ledger, noLedger } from "../../core/ports/ledger.js";
import type { Logger } from "../../lib/log.js";
import type { SweepRun } from "./sweepRun.js";

/**
 * The ledger the renewals are claimed in, opened. One that fails to open is the run's problem:
 * a real sweep then renews nothing, a dry run decides without it (noLedger). Without storage
 * the sweep goes on without one, and says so.
 */
export async function openLedger(
  run: SweepRun,
  ledger: Ledger,
  dryRun: boolean,
  log: Logger,
): Promise<Ledger> {
  run.ledger = ledger.kind;
  if (ledger.kind === "none") {
    log.warn(
      "certsched: no storage configured (AzureWebJobsStorage): sweeping without a ledger, so recent requests and stuck renewals are not tracked",
    );
    return ledger;
  }
  try {
    await ledger.open();
    return ledger;
  } catch (error) {
    run.ledgerFailed(error, dryRun, log);
    return noLedger;
  }
}
