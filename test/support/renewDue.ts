import type { Trigger } from "../../shared/core/history/events.js";
import type { ConcurrencyControl } from "../../shared/core/ports/concurrency.js";
import { noInventory, type PreflightRecord } from "../../shared/core/ports/inventory.js";
import type { Ledger } from "../../shared/core/ports/ledger.js";
import { noRequestLog } from "../../shared/core/ports/requestLog.js";
import type { SweepBudget } from "../../shared/core/quota/sweepBudget.js";
import type { CertificateResult, SweepSummary } from "../../shared/core/renewal/summary.js";
import type { Logger } from "../../shared/lib/log.js";
import { renewDue, type SweepPorts } from "../../shared/usecases/sweep/sweep.js";
import type { SweepClient } from "../../shared/usecases/sweep/sweepCalls.js";
import { SweepRun } from "../../shared/usecases/sweep/sweepRun.js";

/** The renewal stages of a sweep (open the ledger, list, plan, renew each, summarize), as given. */
export interface RenewDueOptions {
  readonly client: SweepClient;
  readonly ledger: Ledger;
  readonly log: Logger;
  readonly now: () => Date;
  readonly concurrency: number;
  readonly control?: ConcurrencyControl;
  readonly graceMs: number;
  readonly claimLeaseMs?: number;
  readonly dryRun: boolean;
  /** Aborted: no new renewal starts (the sweep's deadline). */
  readonly deadline?: AbortSignal;
  readonly onResult?: (result: CertificateResult, done: number, total: number) => void;
  readonly trigger?: Trigger;
  readonly budget?: SweepBudget;
  readonly runId?: string;
  readonly preflights?: ReadonlyMap<string, PreflightRecord>;
  readonly force?: boolean;
}

/**
 * A sweep's renewals without its telemetry and bookkeeping: what the suites of the renew stages
 * drive, with a plain client and ledger (the deadline far away unless `deadline` aborts).
 */
export async function renewDueWith(options: RenewDueOptions): Promise<SweepSummary> {
  const run = new SweepRun(
    { sweepDeadlineMs: Number.POSITIVE_INFINITY },
    { runId: options.runId, trigger: options.trigger, stop: options.deadline },
  );
  const ports = {
    settings: {
      sweepDeadlineMs: Number.POSITIVE_INFINITY,
      renewalConcurrency: options.concurrency,
      renewalGraceMs: options.graceMs,
      dryRun: options.dryRun,
      serviceQuota: options.budget?.quota,
      claimLeaseMs: options.claimLeaseMs ?? 0,
    },
    client: options.client,
    ledger: options.ledger,
    requests: options.budget?.requests ?? noRequestLog,
    inventory: noInventory,
    now: options.now,
    ...(options.control ? { concurrency: options.control } : {}),
  } as unknown as SweepPorts;
  const known = options.preflights
    ? { preflights: options.preflights, served: new Map() }
    : undefined;
  const given = { force: options.force, onResult: options.onResult };
  const { summary } = await renewDue(run, ports, options.log, given, known);
  run.renewalsOver();
  return summary;
}
