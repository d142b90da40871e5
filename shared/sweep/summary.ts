import type { RejectedRecord } from "../service/responses.js";

/** What happened to one certificate in a sweep (also the CLI's `--json` result shape). */
export type Outcome = "renewal-scheduled" | "would-renew" | "skipped" | "failed" | "stuck";
export const OUTCOMES: readonly Outcome[] = [
  "renewal-scheduled",
  "would-renew",
  "skipped",
  "failed",
  "stuck",
];

export interface CertificateResult {
  readonly certificateName: string;
  readonly id: number;
  readonly target: string;
  /** ISO-8601 UTC. */
  readonly expiryDate: string;
  readonly daysLeft: number;
  readonly outcome: Outcome;
  /** Why: the decision's or the service's words. */
  readonly detail: string;
  /** Upstream HTTP status of a failed renewal. */
  readonly status?: number;
  /** Error code of a failed renewal (see shared/errors.ts). */
  readonly error?: string;
}

export interface SweepSummary {
  readonly dryRun: boolean;
  /** ISO-8601 UTC. */
  readonly startedAt: string;
  readonly durationMs: number;
  /** Which ledger guarded against duplicates; "unavailable" when it failed and we went on. */
  readonly ledger: "table" | "memory" | "none" | "unavailable";
  /** Set when the list itself failed: nothing could be decided. */
  readonly listError?: string;
  readonly results: CertificateResult[];
  /** Records the list returned that failed validation; counted as failed. */
  readonly rejected: RejectedRecord[];
  readonly counts: Readonly<Record<Outcome, number>> & { readonly due: number };
  /**
   * True when the run must be reported failed: the list failed, a renewal failed, a certificate
   * is stuck, or the ledger was unavailable.
   */
  readonly failed: boolean;
  /** Problems that made the run fail, one line each. */
  readonly problems: string[];
}

export function countOutcomes(
  results: readonly CertificateResult[],
  rejected: number,
): SweepSummary["counts"] {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const r of results) counts[r.outcome] += 1;
  counts.failed += rejected;
  return { ...counts, due: results.length + rejected };
}

/**
 * Characters JSON.stringify leaves raw that the log escaper would rewrite as `\u{XX}`, which is
 * not JSON: written as JSON's own `\uXXXX` here, the summary stays one parseable line.
 */
const JSON_RAW_CONTROL = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The single structured summary line. */
export function summaryLine(summary: SweepSummary): string {
  return `certsched sweep summary ${JSON.stringify({
    dryRun: summary.dryRun,
    ledger: summary.ledger,
    failed: summary.failed,
    counts: summary.counts,
    durationMs: summary.durationMs,
    ...(summary.listError ? { listError: summary.listError } : {}),
    certificates: summary.results.map((r) => ({
      name: r.certificateName,
      daysLeft: r.daysLeft,
      outcome: r.outcome,
    })),
  }).replace(JSON_RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}`;
}

/** One line per certificate, readable in the portal's log stream. */
export function resultLine(r: CertificateResult): string {
  return `certsched certificate ${r.outcome}: ${r.certificateName} (id ${r.id}, ${r.target}) expires ${r.expiryDate} (${r.daysLeft} days left): ${r.detail}`;
}
