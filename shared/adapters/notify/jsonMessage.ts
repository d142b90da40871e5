import type { SweepSummary } from "../../core/renewal/summary.js";
import { accountOf, oneLine, type SweepReport } from "./sweepReport.js";

/** Certificates in a JSON message; a receiver that needs more reads the run's summary line. */
export const MAX_JSON_CERTIFICATES = 500;

/**
 * The generic message, for a receiver of your own (a Logic App, a function, an incident
 * tool): the counts, every failed, stuck or blocked certificate with its outcome, and the problems.
 */
export function jsonMessage(summary: SweepSummary, report: SweepReport): unknown {
  const listed = report.attention.slice(0, MAX_JSON_CERTIFICATES);
  return {
    source: "certsched",
    event: "sweep",
    account: accountOf(summary.account),
    status: summary.failed ? "failed" : "succeeded",
    title: report.title,
    dryRun: summary.dryRun,
    ...(summary.forced ? { forced: true } : {}),
    startedAt: summary.startedAt,
    durationMs: summary.durationMs,
    ledger: summary.ledger,
    ...(summary.listError ? { listError: oneLine(summary.listError) } : {}),
    counts: summary.counts,
    certificates: listed.map((r) => ({
      certificateName: r.certificateName,
      id: r.id,
      target: r.target,
      expiryDate: r.expiryDate,
      daysLeft: r.daysLeft,
      outcome: r.outcome,
      detail: oneLine(r.detail),
      ...(r.status !== undefined ? { status: r.status } : {}),
      ...(r.error !== undefined ? { error: r.error } : {}),
      ...(r.blockedBy !== undefined ? { blockedBy: r.blockedBy } : {}),
    })),
    omitted: report.attention.length - listed.length,
    problems: report.problems,
    text: report.text,
  };
}
