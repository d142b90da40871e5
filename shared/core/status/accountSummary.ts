import { STATUS_WORDS, type StatusWord } from "./certificateStatus.js";

/**
 * One account's line of the status list and the dashboard: how many certificates it
 * has, how many of each status word, the three that need a person (failed, stuck, not landed)
 * and the days to its next expiry. Both views count with this one function, so their figures
 * cannot drift apart.
 */
export interface AccountSummary {
  readonly name: string;
  /** Every certificate the account's storage knows (not a page, not a filter). */
  readonly certificates: number;
  /** Certificates per status word (every word, 0 included). */
  readonly counts: Readonly<Record<StatusWord, number>>;
  readonly failed: number;
  readonly stuck: number;
  readonly notLanded: number;
  /**
   * Whole days left of the expiry users see (served, else the service's) of the account's
   * soonest-expiring certificate; negative when one has expired already; null when no expiry
   * is known.
   */
  readonly nextExpiryDays: number | null;
  /** Requests sent to the account's service in the last 7 days; absent when unknown. */
  readonly requests7d?: number;
  /** Why the account's certificates could not be read (redacted); they are then not counted. */
  readonly problem?: string;
}

/** What the summary reads of one certificate: its word and its days left (null: unknown). */
export interface SummaryInput {
  readonly status: StatusWord;
  readonly daysLeft: number | null;
}

export function emptyCounts(): Record<StatusWord, number> {
  return Object.fromEntries(STATUS_WORDS.map((word) => [word, 0])) as Record<StatusWord, number>;
}

/** The summary of one account's certificates. */
export function accountSummary(
  name: string,
  certificates: readonly SummaryInput[],
  extra: { readonly requests7d?: number | undefined; readonly problem?: string | undefined } = {},
): AccountSummary {
  const counts = emptyCounts();
  let next: number | null = null;
  for (const c of certificates) {
    counts[c.status] += 1;
    if (c.daysLeft !== null && (next === null || c.daysLeft < next)) next = c.daysLeft;
  }
  return {
    name,
    certificates: certificates.length,
    counts,
    failed: counts.failed,
    stuck: counts.stuck,
    // A vault version its domains never picked up did not land where users look either.
    notLanded: counts["not-landed"] + counts["not-synced"],
    nextExpiryDays: next,
    ...(extra.requests7d !== undefined ? { requests7d: extra.requests7d } : {}),
    ...(extra.problem !== undefined ? { problem: extra.problem } : {}),
  };
}
