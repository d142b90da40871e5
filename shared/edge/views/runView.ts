import type { SweepSummary } from "../../core/renewal/summary.js";
import { type PartView, partView } from "../../core/runs/parts.js";
import { isFinished, type Run, type RunState } from "../../core/runs/run.js";

/**
 * A run as POST /api/renewals and GET /api/renewals/{runId} show it. Once finished it carries
 * the sweep summary's fields too (dryRun, counts, failed, problems, results, ...), so a client
 * that read the old synchronous answer reads a finished run the same way.
 */
export interface RunView extends Partial<Omit<SweepSummary, "dryRun" | "startedAt">> {
  readonly runId: string;
  readonly state: RunState;
  readonly dryRun: boolean;
  /** Forced past the last preflight (`?force=true`); absent: not. */
  readonly force?: boolean;
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
  /** The account an account's part sweeps. */
  readonly account?: string;
  /** The fanned-out run this one is a part of. */
  readonly parentRunId?: string;
  /**
   * A run over several accounts: every account's part (its own run, at its own location). The
   * run's state is derived from theirs; its counts are their sum once every part has finished.
   */
  readonly parts?: readonly (PartView & { readonly location: string })[];
}

/** The path a run is polled at, relative to the host (the Location header's value). */
export function runLocation(runId: string): string {
  return `/api/renewals/${encodeURIComponent(runId)}`;
}

export function runView(run: Run, parts?: readonly (Run | undefined)[]): RunView {
  const { dryRun: _dryRun, startedAt: _startedAt, ...summary } = run.summary ?? {};
  const partViews = (run.parts ?? []).map((part, i) => ({
    ...partView(part, parts?.[i]),
    location: runLocation(part.runId),
  }));
  return {
    runId: run.runId,
    state: run.state,
    dryRun: run.dryRun,
    ...(run.force ? { force: true } : {}),
    location: runLocation(run.runId),
    requestedAt: run.requestedAt.toISOString(),
    requestedBy: run.requestedBy,
    ...(run.startedAt ? { startedAt: run.startedAt.toISOString() } : {}),
    ...(run.finishedAt ? { finishedAt: run.finishedAt.toISOString() } : {}),
    attempts: run.attempts,
    ...(run.problem ? { problem: run.problem } : {}),
    ...(run.resultsOmitted ? { resultsOmitted: run.resultsOmitted } : {}),
    ...(run.resentAt ? { resentAt: run.resentAt.toISOString() } : {}),
    ...(run.account ? { account: run.account } : {}),
    ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
    ...summary,
    ...(run.parts ? { ...totals(run, partViews), parts: partViews } : {}),
  };
}

/** A fanned-out run's counts, failed and problems: its parts' together, once all finished. */
function totals(run: Run, parts: readonly PartView[]): Partial<RunView> {
  if (!isFinished(run.state)) return {};
  const counts: Record<string, number> = {};
  for (const part of parts) {
    for (const [outcome, n] of Object.entries(part.counts ?? {})) {
      counts[outcome] = (counts[outcome] ?? 0) + n;
    }
  }
  const problems = parts.flatMap((p) =>
    p.status === "succeeded"
      ? []
      : (p.problems ?? [p.problem ?? p.status]).map((line) => `account ${p.account}: ${line}`),
  );
  return {
    counts: counts as RunView["counts"],
    failed: run.state === "failed",
    problems,
  };
}
