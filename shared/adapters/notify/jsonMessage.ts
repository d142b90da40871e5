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
    ...calendarPart(summary, report),
    problems: report.problems,
    text: report.text,
  };
}

/**
 * What the renewal calendar did, when it did anything: renewals sent outside their windows (with
 * why), certificates waiting for their window (when it opens) and those disabled by policy.
 */
function calendarPart(summary: SweepSummary, report: SweepReport): Record<string, unknown> {
  const noted = (outcome: string) =>
    summary.results.filter((r) => r.outcome === outcome).slice(0, MAX_JSON_CERTIFICATES);
  const outside = (report.outside ?? []).slice(0, MAX_JSON_CERTIFICATES).map((r) => ({
    certificateName: r.certificateName,
    outcome: r.outcome,
    detail: oneLine(r.detail),
    window: r.window,
  }));
  const waiting = noted("waiting").map((r) => ({
    certificateName: r.certificateName,
    detail: oneLine(r.detail),
    window: r.window,
  }));
  const disabled = noted("disabled").map((r) => r.certificateName);
  return {
    ...(outside.length > 0 ? { renewedOutsideWindow: outside } : {}),
    ...(waiting.length > 0 ? { waiting } : {}),
    ...(disabled.length > 0 ? { disabled } : {}),
  };
}
