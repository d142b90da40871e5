import { OUTCOMES, type Outcome, type SweepSummary } from "../../shared/sweep/summary.js";
import type { Paint, Palette } from "./color.js";
import { formatExpiry } from "./expiry.js";
import { renderTable } from "./table.js";

function outcomePaint(outcome: Outcome, paint: Palette): Paint {
  switch (outcome) {
    case "renewal-scheduled":
      return paint.green;
    case "would-renew":
      return paint.cyan;
    case "skipped":
      return paint.dim;
    case "failed":
      return paint.red;
    case "stuck":
      return paint.yellow;
  }
}

export function daysPaint(daysLeft: number, paint: Palette): Paint | undefined {
  if (daysLeft < 0) return paint.red;
  if (daysLeft <= 7) return paint.yellow;
  return undefined;
}

const LEDGER_NOTE: Record<SweepSummary["ledger"], string> = {
  table: "Ledger: Azure Table storage (shared with the function app)",
  memory: "Ledger: in memory, for this run only",
  none: "Ledger: none (recent requests and stuck renewals are not tracked between runs)",
  unavailable: "Ledger: unavailable (went on without duplicate protection)",
};

/** The sweep for people: a table of certificates, then counts and problems. */
export function renderSweep(summary: SweepSummary, paint: Palette, width?: number): string[] {
  const lines: string[] = [];
  if (summary.listError) {
    lines.push(paint.red(`Could not list the certificates due: ${summary.listError}`));
  } else if (summary.results.length === 0 && summary.rejected.length === 0) {
    lines.push("Nothing is due for renewal.");
  } else {
    // Soonest expiry first: what needs a person's attention comes first.
    const results = [...summary.results].sort((a, b) => a.expiryDate.localeCompare(b.expiryDate));
    const rows = results.map((r) => [
      r.certificateName,
      r.target,
      { text: formatExpiry(r.expiryDate, r.daysLeft), paint: daysPaint(r.daysLeft, paint) },
      { text: r.outcome, paint: outcomePaint(r.outcome, paint) },
      r.detail,
    ]);
    lines.push(
      ...renderTable(["CERTIFICATE", "TARGET", "EXPIRES (UTC)", "OUTCOME", "DETAIL"], rows, {
        header: paint.bold,
        width,
      }),
    );
  }
  lines.push("");
  const counts = OUTCOMES.filter((o) => summary.counts[o] > 0).map(
    (o) => `${summary.counts[o]} ${o}`,
  );
  const due = `${summary.counts.due} due${counts.length > 0 ? `: ${counts.join(", ")}` : ""}`;
  lines.push(
    `${due}. ${summary.dryRun ? "Dry run: nothing was renewed. " : ""}${LEDGER_NOTE[summary.ledger]}.`,
  );
  if (summary.failed) {
    lines.push(paint.red("The sweep failed:"));
    for (const problem of summary.problems) lines.push(`  - ${problem}`);
  }
  return lines;
}
