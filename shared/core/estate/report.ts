import { DAY_MS } from "../../lib/time.js";
import type { InventoryRecord } from "../ports/inventory.js";
import type { EstateCertificate, EstateProblem } from "./estate.js";
import { type EstateMatch, managedBy, renewedHostNames, renewedNamesOf } from "./match.js";

/** What is wrong with an unmanaged certificate, most urgent first. */
export type Gap = "unmanaged-expiring" | "different-certificate" | "bound-nowhere";

export interface EstateEntry {
  readonly certificate: EstateCertificate;
  /** The certsched certificateName that keeps it; undefined: unmanaged. */
  readonly managedBy?: string | undefined;
  readonly match?: EstateMatch | undefined;
  /** Empty for a managed certificate. */
  readonly gaps: readonly Gap[];
  /** different-certificate: the host names certsched renews that it is bound to or covers. */
  readonly renewedHostNames?: readonly string[] | undefined;
}

export interface EstateReport {
  readonly account: string;
  readonly at: Date;
  /** Unmanaged certificates expiring within this many days (or expired) are a gap. */
  readonly expiringDays: number;
  /** Gaps first (see estateReport), then the rest by name. */
  readonly entries: readonly EstateEntry[];
  readonly counts: {
    readonly certificates: number;
    readonly managed: number;
    readonly unmanaged: number;
  } & Readonly<Record<Gap, number>>;
  readonly problems: readonly EstateProblem[];
  readonly truncated: number;
}

export interface EstateReportInput {
  readonly account: string;
  readonly discovered: readonly EstateCertificate[];
  readonly records: readonly InventoryRecord[];
  readonly now: Date;
  readonly expiringDays: number;
  readonly problems: readonly EstateProblem[];
  readonly truncated: number;
}

/** Expired, or expiring at most `days` days after `now` (exactly `days` days is within). */
export function expiresWithin(certificate: EstateCertificate, now: Date, days: number): boolean {
  const expiresAt = certificate.expiresAt;
  return expiresAt !== undefined && expiresAt.getTime() - now.getTime() <= days * DAY_MS;
}

function entryOf(
  certificate: EstateCertificate,
  input: EstateReportInput,
  renewed: readonly string[],
): EstateEntry {
  const managed = managedBy(certificate, input.records);
  if (managed)
    return { certificate, managedBy: managed.certificateName, match: managed.match, gaps: [] };
  const names = renewedNamesOf(certificate, renewed);
  const gaps: Gap[] = [];
  if (expiresWithin(certificate, input.now, input.expiringDays)) gaps.push("unmanaged-expiring");
  if (names.length > 0) gaps.push("different-certificate");
  if (certificate.boundTo.length === 0) gaps.push("bound-nowhere");
  return { certificate, gaps, ...(names.length > 0 ? { renewedHostNames: names } : {}) };
}

const RANK: Record<Gap, number> = {
  "unmanaged-expiring": 0,
  "different-certificate": 1,
  "bound-nowhere": 2,
};

function rank(entry: EstateEntry): number {
  return Math.min(3, ...entry.gaps.map((gap) => RANK[gap]));
}

function compareEntries(a: EstateEntry, b: EstateEntry): number {
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  if (rank(a) === 0) {
    const byExpiry = Number(a.certificate.expiresAt) - Number(b.certificate.expiresAt);
    if (byExpiry !== 0) return byExpiry;
  }
  const byName = a.certificate.name.localeCompare(b.certificate.name);
  if (byName !== 0) return byName;
  return a.certificate.id < b.certificate.id ? -1 : a.certificate.id > b.certificate.id ? 1 : 0;
}

/**
 * Each discovered certificate with the inventory record that keeps it, or its gaps: unmanaged
 * and expiring (soonest first), bound to a host name certsched renews but a different
 * certificate, bound nowhere; then the rest by name.
 */
export function estateReport(input: EstateReportInput): EstateReport {
  const renewed = renewedHostNames(input.records);
  const entries = input.discovered.map((c) => entryOf(c, input, renewed)).sort(compareEntries);
  const count = (gap: Gap) => entries.filter((entry) => entry.gaps.includes(gap)).length;
  const managed = entries.filter((entry) => entry.managedBy !== undefined).length;
  return {
    account: input.account,
    at: input.now,
    expiringDays: input.expiringDays,
    entries,
    counts: {
      certificates: entries.length,
      managed,
      unmanaged: entries.length - managed,
      "unmanaged-expiring": count("unmanaged-expiring"),
      "different-certificate": count("different-certificate"),
      "bound-nowhere": count("bound-nowhere"),
    },
    problems: input.problems,
    truncated: input.truncated,
  };
}
