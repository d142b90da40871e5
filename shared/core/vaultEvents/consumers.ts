import { HOUR_MS } from "../../lib/time.js";
import type { InventoryResult } from "../verification/inventoryResult.js";

/**
 * Whether the domains bound to a vault certificate serve its new version yet, and when to
 * look again while some do not: soon after the version lands, then less often, until the
 * sync window ends.
 */

export interface ConsumerState {
  /** Domains serving the version (its thumbprint). */
  readonly serving: readonly string[];
  /** Domains serving another certificate. */
  readonly behind: readonly string[];
  /** Domains where no certificate was read (unreachable). */
  readonly unread: readonly string[];
}

/** The longest wait between two rechecks. */
export const MAX_RECHECK_GAP_MS = HOUR_MS;

const sorted = (domains: readonly string[]) => [...new Set(domains)].sort();

/** The TLS results of the certificates `names`, against the version's `thumbprint`. */
export function consumersOf(
  results: readonly InventoryResult[],
  names: readonly string[],
  thumbprint: string,
): ConsumerState {
  const bound = new Set(names);
  const serving: string[] = [];
  const behind: string[] = [];
  const unread: string[] = [];
  const wanted = thumbprint.toUpperCase();
  for (const r of results) {
    if (r.source !== "tls" || r.certificateName === undefined || !bound.has(r.certificateName)) {
      continue;
    }
    if (r.thumbprint === undefined) unread.push(r.domain);
    else if (r.thumbprint.toUpperCase() === wanted) serving.push(r.domain);
    else behind.push(r.domain);
  }
  return { serving: sorted(serving), behind: sorted(behind), unread: sorted(unread) };
}

/**
 * When recheck `attempt` (1 for the first) is due: `firstMs` after `now`, twice as long for
 * each next one, at most MAX_RECHECK_GAP_MS; never after `until` (the end of the sync window),
 * so the last one is `until` itself. Undefined once `now` has reached `until`.
 */
export function nextRecheck(
  attempt: number,
  firstMs: number,
  now: Date,
  until: Date,
): Date | undefined {
  if (now.getTime() >= until.getTime()) return undefined;
  const doublings = Number.isFinite(attempt)
    ? Math.max(0, Math.min(Math.floor(attempt) - 1, 40))
    : 0;
  const gap = Math.min(firstMs * 2 ** doublings, MAX_RECHECK_GAP_MS);
  const at = now.getTime() + Math.max(0, gap);
  return new Date(Math.min(at, until.getTime()));
}
