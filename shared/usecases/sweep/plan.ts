import type { CertificateRecord } from "../../core/certificate/records.js";
import type { QuotaUsage } from "../../core/ports/budget.js";
import type { RequestLog } from "../../core/ports/requestLog.js";
import { usageText } from "../../core/quota/budgetRules.js";
import type { ServiceQuota } from "../../core/quota/serviceQuota.js";
import {
  byUrgency,
  deferralCause,
  quotaAtStart,
  type RenewalGate,
  renewalGate,
  type SweepBudget,
} from "../../core/quota/sweepBudget.js";
import type { QuotaView } from "../../core/renewal/summary.js";
import type { Logger } from "../../lib/log.js";
import { within } from "./runSteps.js";
import type { SweepRun } from "./sweepRun.js";

/** The order of the renewals and what the request budget allows them. */
export interface Plan {
  /** Most urgent first (fewest days left, then the name). */
  readonly certificates: readonly CertificateRecord[];
  /** CERTSCHED_SERVICE_QUOTA as the run saw it after its list; unset without a quota. */
  readonly quota: QuotaView | undefined;
  /** How the renewals spend what is left of the quota; unset without one. */
  readonly gate: RenewalGate | undefined;
  /** The detail of a renewal the shared budget refused as it was about to be sent. */
  refused(usage: QuotaUsage): string;
  /** Why renewals were deferred, for the run's problem line; undefined when none was. */
  cause(): string | undefined;
}

/**
 * Orders the due certificates by urgency and reads the request budget once the list is
 * counted: renewals go out, most urgent first, while the requests they send (retries included)
 * fit what is left. A dry run sends nothing, so it reads no quota.
 */
export async function planRenewals(
  run: SweepRun,
  due: readonly CertificateRecord[],
  budget: SweepBudget | undefined,
  clock: { readonly log: Logger; readonly now: () => Date; readonly dryRun: boolean },
): Promise<Plan> {
  const certificates = byUrgency(due);
  const quota = clock.dryRun ? undefined : await quotaAtStart(budget, { ...clock, runId: run.id });
  const gate =
    quota && budget ? renewalGate(quota, budget.requests, certificates.length, run.id) : undefined;
  /** Why renewals were refused by the shared budget when the sweep had no gate of its own. */
  let refusedCause: string | undefined;
  return {
    certificates,
    quota,
    gate,
    refused: (usage) => {
      if (gate) return gate.refused(usage);
      refusedCause = deferralCause(usage);
      return `${usageText(usage)}; the next sweep will decide it`;
    },
    cause: () => gate?.cause() ?? refusedCause,
  };
}

/**
 * The sweep's request budget: the account's request log and CERTSCHED_SERVICE_QUOTA. With a run
 * budget, the 7-day count waits at most a quarter of the bookkeeping's reserve (it is only read).
 */
export function budgetOf(
  run: SweepRun,
  requests: RequestLog,
  quota: ServiceQuota | undefined,
): SweepBudget {
  const bounded = run.timed
    ? countWithin(requests, () => Math.min(run.reserveMs() / 4, run.left()))
    : requests;
  return { requests: bounded, quota };
}

/**
 * The request log with its 7-day count bounded: `since` rejects once `ms()` (asked when the
 * count starts) has passed without an answer, and the sweep's summary goes without
 * `requests7d` (its warning says the count could not be read). Everything else as `requests`.
 */
export function countWithin(requests: RequestLog, ms: () => number): RequestLog {
  const late = Symbol("late");
  return {
    kind: requests.kind,
    shared: requests.shared,
    count: (operation, context) => requests.count(operation, context),
    reserve: (operation, context) => requests.reserve(operation, context),
    usage: (runId) => requests.usage(runId),
    sent: () => requests.sent(),
    settled: () => requests.settled(),
    since: async (since) => {
      const limit = ms();
      const count = await within(requests.since(since), limit, late);
      if (count === late) {
        throw new Error(
          `no answer within the ${Math.max(0, Math.round(limit))} ms the run had left for it`,
        );
      }
      return count;
    },
  };
}
