import type { InventoryRecord } from "../../core/ports/inventory.js";
import {
  type CheckDocument,
  checkDocument,
  countByStatus,
  type PreflightResult,
  type PreflightStatus,
} from "../../core/preflight/preflight.js";
import type { AccountPart } from "../acrossAccounts.js";

/**
 * GET and POST /api/preflight: each result as `certsched preflight --json` writes it
 * (docs/contracts/preflight.md), plus `at` (when its checks ran), over every account asked.
 */

/** A check as the contract writes it: `reason` on every check, null unless it failed. */
export type PreflightCheckView = CheckDocument;

export interface PreflightResultView {
  readonly account: string;
  readonly certificateName: string;
  readonly rootDomain: string | null;
  readonly status: PreflightStatus;
  readonly checks: readonly PreflightCheckView[];
  /** ISO 8601, UTC. */
  readonly at: string;
}

export function resultView(result: PreflightResult): PreflightResultView {
  return {
    account: result.account,
    certificateName: result.certificateName,
    rootDomain: result.rootDomain,
    status: result.status,
    checks: result.checks.map(checkDocument),
    at: result.at.toISOString(),
  };
}

/** The last preflight kept with each inventory row of one account (rows never checked: none). */
export function storedResults(
  account: string,
  records: readonly InventoryRecord[],
): PreflightResult[] {
  return records.flatMap((r) =>
    r.lastPreflight ? [{ account, certificateName: r.certificateName, ...r.lastPreflight }] : [],
  );
}

/** What a caller may narrow the answer to. */
export interface PreflightFilter {
  readonly certificate?: string | undefined;
  readonly status?: PreflightStatus | undefined;
}

const matches = (filter: PreflightFilter) => (r: PreflightResult) =>
  (filter.certificate === undefined || r.certificateName === filter.certificate) &&
  (filter.status === undefined || r.status === filter.status);

/**
 * The document over accounts: the results in the accounts' order, each account's by name (the
 * inventory's order), and the counts of every status (zero included), as the CLI's.
 */
export function preflightAcross(
  parts: readonly AccountPart<readonly PreflightResult[]>[],
  filter: PreflightFilter = {},
): { results: PreflightResultView[]; counts: Record<PreflightStatus, number> } {
  const results = parts.flatMap((p) => p.value.filter(matches(filter)));
  return { results: results.map(resultView), counts: countByStatus(results) };
}
