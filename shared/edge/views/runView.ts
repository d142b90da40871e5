import type { SweepSummary } from "../../core/renewal/summary.js";
import type { Run, RunState } from "../../core/runs/run.js";

/**
 * A run as POST /api/renewals and GET /api/renewals/{runId} show it. Once finished it carries
 * the sweep summary's fields too (dryRun, counts, failed, problems, results, ...), so a client
 * that read the old synchronous answer reads a finished run the same way.
 */
export interface RunView extends Partial<Omit<SweepSummary, "dryRun" | "startedAt">> {
  readonly runId: string;
  readonly state: RunState;
  readonly dryRun: boolean;
  /** Where to poll: /api/renewals/{runId}. */
  readonly location: string;
  /** ISO-8601 UTC. */
  readonly requestedAt: string;
  readonly requestedBy: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly attempts: number;
  /** Why the run failed without a summary, or why its latest attempt failed. */
  readonly problem?: string;
  /** Results left out: more than the run store holds in one row (the history has them all). */
  readonly resultsOmitted?: number;
  /** When its message was sent again: no delivery had come within a few minutes (ISO-8601). */
  readonly resentAt?: string;
}

/** The path a run is polled at, relative to the host (the Location header's value). */
export function runLocation(runId: string): string {
  return `/api/renewals/${encodeURIComponent(runId)}`;
}

export function runView(run: Run): RunView {
  const { dryRun: _dryRun, startedAt: _startedAt, ...summary } = run.summary ?? {};
  return {
    runId: run.runId,
    state: run.state,
    dryRun: run.dryRun,
    location: runLocation(run.runId),
    requestedAt: run.requestedAt.toISOString(),
    requestedBy: run.requestedBy,
    ...(run.startedAt ? { startedAt: run.startedAt.toISOString() } : {}),
    ...(run.finishedAt ? { finishedAt: run.finishedAt.toISOString() } : {}),
    attempts: run.attempts,
    ...(run.problem ? { problem: run.problem } : {}),
    ...(run.resultsOmitted ? { resultsOmitted: run.resultsOmitted } : {}),
    ...(run.resentAt ? { resentAt: run.resentAt.toISOString() } : {}),
    ...summary,
  };
}
