import type { EstateCertificate, EstateProblem } from "./estate.js";
import { type CreateProposal, createProposal } from "./proposal.js";
import type { EstateEntry, EstateReport, Gap } from "./report.js";

/**
 * The estate report as GET /api/estate and `certsched estate --json` give it: dates as ISO
 * text, and for each certificate certsched does not keep, the create request it would send
 * to keep it (shown, never sent). Field names are part of the public contract (docs/estate.md).
 */
export type EstateEntryView = Omit<EstateCertificate, "notBefore" | "expiresAt"> & {
  readonly notBefore?: string | undefined;
  readonly expiresAt?: string | undefined;
  /** The certsched certificate that keeps it, and how it was matched; absent: unmanaged. */
  readonly managedBy?: string | undefined;
  readonly match?: string | undefined;
  readonly gaps: readonly Gap[];
  readonly renewedHostNames?: readonly string[] | undefined;
  /** Unmanaged only: what certsched would send to keep it (not sent). */
  readonly proposal?: CreateProposal | undefined;
};

export interface EstateView {
  readonly account: string;
  readonly at: string;
  readonly expiringDays: number;
  readonly counts: EstateReport["counts"];
  readonly entries: readonly EstateEntryView[];
  readonly problems: readonly EstateProblem[];
  readonly truncated: number;
}

const iso = (date: Date | undefined) => date?.toISOString();

function entryView(entry: EstateEntry): EstateEntryView {
  const c = entry.certificate;
  return {
    ...c,
    notBefore: iso(c.notBefore),
    expiresAt: iso(c.expiresAt),
    managedBy: entry.managedBy,
    match: entry.match,
    gaps: entry.gaps,
    renewedHostNames: entry.renewedHostNames,
    proposal: entry.managedBy === undefined ? createProposal(c) : undefined,
  };
}

export function estateView(report: EstateReport): EstateView {
  return {
    account: report.account,
    at: report.at.toISOString(),
    expiringDays: report.expiringDays,
    counts: report.counts,
    entries: report.entries.map(entryView),
    problems: report.problems,
    truncated: report.truncated,
  };
}
