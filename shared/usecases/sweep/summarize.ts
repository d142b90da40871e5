import { requestsLast7Days, type SweepBudget } from "../../core/quota/sweepBudget.js";
import {
  type CertificateResult,
  countOutcomes,
  resultProblems,
  type SweepSummary,
  summaryLine,
  unresolvedField,
} from "../../core/renewal/summary.js";
import type { Logger } from "../../lib/log.js";
import type { Listing } from "./list.js";
import type { Plan } from "./plan.js";
import type { SweepRun } from "./sweepRun.js";

/** What the summary is made of, besides the run. */
export interface SummaryInput {
  readonly listing: Listing;
  readonly plan?: Plan | undefined;
  readonly results: CertificateResult[];
  readonly budget: SweepBudget | undefined;
  readonly dryRun: boolean;
  readonly force: boolean;
  readonly log: Logger;
  readonly now: () => Date;
}

/**
 * The sweep's summary, logged in one line: every result, the counts, the problems, and whether
 * the run must be reported failed. The 7-day request count is read once this run's requests
 * are written.
 */
export async function summarize(run: SweepRun, input: SummaryInput): Promise<SweepSummary> {
  const { listing, results, log } = input;
  const requests7d = await requestsLast7Days(input.budget, input);
  const rejected = listing.kind === "listed" ? listing.due.rejected : [];
  const listError = listing.kind === "failed" ? listing.error : undefined;
  const problems = run.problems;
  problems.push(...resultProblems(results, rejected, input.plan?.cause()));
  if (run.unresolved.length > 0) {
    problems.push(
      `${run.unresolved.length} renewal claim(s) of this sweep left unresolved in the ledger: ${run.unresolved.join(", ")}`,
    );
  }
  const counts = countOutcomes(results, rejected.length);
  const summary: SweepSummary = {
    dryRun: input.dryRun,
    ...(input.force ? { forced: true as const } : {}),
    startedAt: run.renewals.startedAt.toISOString(),
    durationMs: Math.round(performance.now() - run.renewals.started),
    ledger: run.ledger,
    ...(listError ? { listError } : {}),
    results,
    rejected,
    counts,
    failed: listError !== undefined || mustLook(run, results, counts),
    problems,
    ...(requests7d !== undefined ? { requests7d } : {}),
    ...(input.plan?.quota ? { quota: input.plan.quota } : {}),
    ...unresolvedField(results),
  };
  const line = summaryLine(summary);
  if (summary.failed) log.error(line);
  else log.info(line);
  return summary;
}

/** Whether a person must look at the run, whatever its list did. */
function mustLook(
  run: SweepRun,
  results: readonly CertificateResult[],
  counts: SweepSummary["counts"],
): boolean {
  return (
    counts.failed > 0 ||
    counts.stuck > 0 ||
    // Its preflight says it would be refused: a person must act.
    counts.blocked > 0 ||
    counts["not-attempted"] > 0 ||
    run.ledger === "unavailable" ||
    run.unresolved.length > 0 ||
    // An hour after an unknown answer, the certificate is still not asked for again.
    results.some((r) => r.answerUnknown?.overdue) ||
    // The budget is too small for what is due: a person must look.
    counts.deferred > 0
  );
}
