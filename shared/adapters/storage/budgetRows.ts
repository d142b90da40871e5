import type { RequestPurpose } from "../../core/quota/requestContext.js";
import { HOUR_MS } from "../../lib/time.js";

/**
 * The shared budget's rows and timing (sharedBudget.ts): storage timestamps, contention, the
 * states of a read's row.
 */

/** A storage timestamp as Table storage writes it in an ETag: W/"datetime'2024-...Z'". */
const ETAG_TIME = /datetime'([^']+)'/;

/**
 * The instant the storage service gave the inserted row: its ETag carries the row's Timestamp.
 * Failing that, the response's Date header (whole seconds, sent after the insert) less one
 * second, so the window is never shorter than it should be.
 */
export function insertedAt(headers: { etag?: string; date?: Date }): Date | undefined {
  const match = headers.etag ? ETAG_TIME.exec(headers.etag) : null;
  if (match?.[1]) {
    const at = new Date(decodeURIComponent(match[1]));
    if (!Number.isNaN(at.getTime())) return at;
  }
  if (headers.date && !Number.isNaN(headers.date.getTime())) {
    return new Date(headers.date.getTime() - 1000);
  }
  return undefined;
}

/** A row this young (storage clock) may be a contender's that is about to back off. */
export const CONTENTION_MS = 2_000;
/**
 * Tries of one reservation when only contenders stood in the way: a renewal keeps trying
 * much longer than a read, so in a burst the reads give way first. Reads past their share write
 * no row (refusedAtSight), so a flood of reads stops standing in the way once their share is
 * taken; a renewal's 40 tries span several seconds (CONTENDED_PAUSE_MS), longer than such a
 * burst lasts even on a loaded host: 8 tries (about 1.5 s) let a renewal be deferred by a
 * flood of reads on a busy machine.
 */
export const CONTENDED_TRIES: Readonly<Record<RequestPurpose, number>> = { renewal: 40, read: 3 };
/** Longest random pause between two contended tries, in ms (grows with the try up to this). */
export const CONTENDED_PAUSE_MS = 400;

/**
 * How recent a due list must be (storage clock) for the inventory to say what renewals need:
 * sweeps run daily, so a day and a margin. Without one, no read spends before a list is made.
 */
export const LIST_FRESH_MS = 26 * HOUR_MS;

/** OData datetime literal; the storage service compares Timestamp to the 100 ns. */
export const datetime = (at: Date) => `datetime'${at.toISOString()}'`;

/** Rows of the window as read: key, what they were for, and when the storage wrote them. */
export interface Counted {
  readonly rowKey: string;
  readonly purpose: string | undefined;
  readonly runId: string | undefined;
  readonly at: number;
}

/**
 * A read's row is written "pending" and marked "granted" once its count allowed it; renewals
 * do not count pending reads (most are refused and released a moment later), so a flood of
 * reads cannot make a renewal back off. Why that stays within the limit: see reserveOnce.
 */
export const PENDING = "pending";
export const GRANTED = "granted";
