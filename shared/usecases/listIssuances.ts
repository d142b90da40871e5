import type { TransparencyStore } from "../core/ports/transparency.js";
import {
  type IssuanceState,
  type IssuanceView,
  issuanceView,
} from "../core/transparency/issuanceView.js";
import { parseDuration } from "../lib/time.js";

/**
 * The Certificate Transparency issuances certsched keeps for one account, as every surface lists
 * them (GET /api/issuances, `certsched ct`): newest first, each as its IssuanceView.
 */

/** The states a list may be narrowed to, in the order counts are written. */
export const ISSUANCE_STATES: readonly [IssuanceState, ...IssuanceState[]] = [
  "expected",
  "pending",
  "unexpected",
  "acknowledged",
];

/** How many issuances listed are in each state. */
export type IssuanceCounts = Readonly<Record<IssuanceState, number>>;

/** The rule a `since` must follow, as a 400 or a usage error says it. */
export const SINCE_RULE =
  "must be a date (2026-01-31), a date and time with its offset (2026-01-31T08:00:00Z) or a duration back from now (30d, 12h, P7D)";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;

/** Whether year-month-day names a day of the calendar (Date rolls 2026-02-30 over to March). */
function realDay(year: number, month: number, day: number): boolean {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= last;
}

/**
 * A `since` as a person writes it: a date (midnight UTC), a date and time with its offset, or a
 * duration back from `now`. Undefined when it is none of these, or no real day (2026-02-30, a
 * year before 1970).
 */
export function parseSince(text: string, now: Date): Date | undefined {
  const value = text.trim();
  const date = DATE.exec(value) ?? DATE_TIME.exec(value);
  if (date) {
    const [year, month, day] = date.slice(1, 4).map(Number) as [number, number, number];
    if (!realDay(year, month, day)) return undefined;
    const at = new Date(DATE.test(value) ? `${value}T00:00:00Z` : value);
    return Number.isNaN(at.getTime()) ? undefined : at;
  }
  const ms = parseDuration(value);
  return ms === undefined ? undefined : new Date(now.getTime() - ms);
}

/** What listing needs: the account, its store, the clock (for "expired"). */
export interface ListIssuancesPorts {
  readonly account: string;
  readonly transparency: Pick<TransparencyStore, "list">;
  readonly now: () => Date;
}

export interface IssuanceFilter {
  /** First seen at or after this instant. */
  readonly since?: Date | undefined;
  /** Only the issuances in this state. */
  readonly state?: IssuanceState | undefined;
}

export interface IssuanceList {
  /** Newest first (by when certsched first read them). */
  readonly issuances: IssuanceView[];
  /** The rows that could not be read, one line each. */
  readonly warnings: string[];
}

/** One account's issuances, newest first, narrowed by `filter`. */
export async function listIssuances(
  ports: ListIssuancesPorts,
  filter: IssuanceFilter = {},
): Promise<IssuanceList> {
  const read = await ports.transparency.list(
    ports.account,
    filter.since ? { since: filter.since } : undefined,
  );
  const now = ports.now();
  const issuances = [...read.items]
    .sort((a, b) => b.firstSeenAt.getTime() - a.firstSeenAt.getTime())
    .map((seen) => issuanceView(seen, now))
    .filter((view) => filter.state === undefined || view.state === filter.state);
  return { issuances, warnings: [...read.invalid] };
}

/** How many of `views` are in each state (every state named, 0 when none). */
export function issuanceCounts(views: readonly IssuanceView[]): IssuanceCounts {
  const counts: Record<IssuanceState, number> = {
    expected: 0,
    pending: 0,
    unexpected: 0,
    acknowledged: 0,
  };
  for (const view of views) counts[view.state] += 1;
  return counts;
}
