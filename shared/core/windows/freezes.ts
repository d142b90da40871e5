import type { Freeze } from "./calendar.js";

/** The freeze holding `at` (from ≤ at < to), the one ending last when several do. */
export function frozenAt(freezes: readonly Freeze[], at: Date): Freeze | undefined {
  let holding: Freeze | undefined;
  for (const f of freezes) {
    if (f.from.getTime() <= at.getTime() && at.getTime() < f.to.getTime()) {
      if (!holding || f.to.getTime() > holding.to.getTime()) holding = f;
    }
  }
  return holding;
}

/** The first moment at or after `at` that no freeze holds (freezes that touch count as one). */
export function thawAt(freezes: readonly Freeze[], at: Date): Date {
  let t = at;
  for (let f = frozenAt(freezes, t); f; f = frozenAt(freezes, t)) t = f.to;
  return t;
}

/** The first freeze to start after `at`, if any. */
export function nextFreezeStart(freezes: readonly Freeze[], at: Date): Date | undefined {
  let first: Date | undefined;
  for (const f of freezes) {
    if (f.from.getTime() > at.getTime() && (!first || f.from.getTime() < first.getTime())) {
      first = f.from;
    }
  }
  return first;
}
