import type { Logger } from "../log.js";
import type { Runtime } from "../runtime.js";
import { runSweep } from "../sweep/runSweep.js";
import type { SweepSummary } from "../sweep/summary.js";

/** The sweep with the runtime's settings; `dryRun` overrides CERTSCHED_DRY_RUN when given. */
export function sweepWith(
  runtime: Runtime,
  log: Logger,
  options: { dryRun?: boolean; concurrency?: number } = {},
): Promise<SweepSummary> {
  return runSweep({
    client: runtime.client,
    ledger: runtime.ledger,
    log,
    now: runtime.now,
    concurrency: options.concurrency ?? runtime.settings.renewalConcurrency,
    graceMs: runtime.settings.renewalGraceMs,
    dryRun: options.dryRun ?? runtime.settings.dryRun,
  });
}
