import type { Read } from "../ports/history.js";
import type { SeenIssuance } from "../transparency/issuance.js";
import { issuanceLine, issuanceState, needsAttention } from "../transparency/issuanceView.js";

/**
 * What `certsched status` and the dashboard say about one account's Certificate Transparency
 * watch: the issuances nobody explained and nobody acknowledged (a red line), and those that may
 * still be certsched's own (a request sent, not landed yet). Expected and acknowledged ones are
 * `certsched ct`'s to list, not a status's.
 */

/** Issuances a status names by their line; the rest are counted. */
export const SHOWN_ISSUANCES = 3;

export interface IssuanceStatus {
  readonly account: string;
  /** Unexpected and not acknowledged, newest first. */
  readonly unexpected: readonly SeenIssuance[];
  /** In the completion window of a request certsched sent, newest first. */
  readonly pending: readonly SeenIssuance[];
  /** Why issuances could not be read, or rows that could not be: one line each, redacted. */
  readonly problems: readonly string[];
}

/** One account's status from what its store listed (newest first). */
export function issuanceStatusOf(account: string, read: Read<SeenIssuance>): IssuanceStatus {
  return {
    account,
    unexpected: read.items.filter(needsAttention),
    pending: read.items.filter((s) => issuanceState(s) === "pending"),
    problems: read.invalid.map((line) => `unreadable issuance: ${line}`),
  };
}

/** A status whose issuances could not be read: nothing to show but why. */
export function unreadableIssuances(account: string, problem: string): IssuanceStatus {
  return { account, unexpected: [], pending: [], problems: [problem] };
}

/**
 * The red line: "2 unexpected certificate issuances (not acknowledged): certsched ct";
 * undefined when there is none.
 */
export function unexpectedIssuancesLine(status: IssuanceStatus): string | undefined {
  const n = status.unexpected.length;
  if (n === 0) return undefined;
  return `${n} unexpected certificate issuance${n === 1 ? "" : "s"} (not acknowledged): certsched ct`;
}

/** The first SHOWN_ISSUANCES unexpected issuances by their line, then how many more. */
export function unexpectedIssuanceLines(status: IssuanceStatus): string[] {
  const lines = status.unexpected.slice(0, SHOWN_ISSUANCES).map(issuanceLine);
  const more = status.unexpected.length - lines.length;
  return more > 0 ? [...lines, `and ${more} more`] : lines;
}
