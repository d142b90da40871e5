import { boundDetail } from "../../lib/text/boundDetail.js";
import type { EstateKind } from "./estate.js";
import { bindings } from "./lines.js";
import type { EstateEntry, EstateReport } from "./report.js";

/**
 * What is kept of an account's last estate report between runs: when it was made, its counts,
 * and the unmanaged-and-expiring entries (each in a few fields), so that the next run announces
 * only the certificates that entered the set, and the dashboard shows them without discovering.
 */
export interface KeptEntry {
  /** The certificate's id in the report (EstateCertificate.id). */
  readonly id: string;
  readonly name: string;
  readonly kind: EstateKind;
  readonly subscriptionId: string;
  readonly expiresAt?: Date | undefined;
  /** Where it is bound, in a few words (escaped, bounded). */
  readonly boundTo: string;
}

export interface KeptEstate {
  readonly account: string;
  readonly at: Date;
  readonly expiringDays: number;
  readonly counts: EstateReport["counts"];
  /** Parts of the estate not read in that run. */
  readonly problems: number;
  readonly truncated: number;
  /** Every unmanaged-and-expiring entry of the report, soonest first. */
  readonly expiring: readonly KeptEntry[];
}

/** An account's last estate as a page shows it: what was kept, or why it could not be read. */
export interface EstateStatus {
  readonly account: string;
  /** The last report kept; undefined: none yet (the timer has not run, or discovery is off). */
  readonly kept?: KeptEstate | undefined;
  /** Why the last report could not be read (redacted); undefined: it was. */
  readonly problem?: string | undefined;
}

const isExpiring = (entry: EstateEntry) => entry.gaps.includes("unmanaged-expiring");

/** What is kept of `report`. */
export function keptOf(report: EstateReport): KeptEstate {
  return {
    account: report.account,
    at: report.at,
    expiringDays: report.expiringDays,
    counts: report.counts,
    problems: report.problems.length,
    truncated: report.truncated,
    expiring: report.entries.filter(isExpiring).map(({ certificate: c }) => ({
      id: c.id,
      name: c.name,
      kind: c.kind,
      subscriptionId: c.subscriptionId,
      expiresAt: c.expiresAt,
      boundTo: boundDetail(bindings(c), 300),
    })),
  };
}

/** The entries of `current` that are unmanaged and expiring and were not so in `previous` (by id). */
export function enteringExpiring(
  previous: Pick<KeptEstate, "expiring"> | undefined,
  current: EstateReport,
): EstateEntry[] {
  const before = new Set((previous?.expiring ?? []).map((entry) => entry.id));
  return current.entries.filter((entry) => isExpiring(entry) && !before.has(entry.certificate.id));
}
