import type { Freeze, Opening } from "./calendar.js";
import { frozenAt, nextFreezeStart, thawAt } from "./freezes.js";
import { localText } from "./localTime.js";
import type { WindowClock } from "./windowClock.js";

/** How far ahead an opening is looked for: past it, a window counts as never opening. */
export const HORIZON_MS = 10 * 366 * 24 * 60 * 60 * 1000;

/** Steps of the search for an opening: each passes a freeze or reaches a window's start. */
const MAX_STEPS = 10_000;

/** The end of time as a Date: an opening after the last freeze, with no windows, never closes. */
const NEVER = new Date(8.64e15);

/**
 * When a certificate may be renewed: inside one of its windows (all of them, or none declared)
 * and outside every freeze.
 */
export class OpenTimes {
  constructor(
    private readonly windows: readonly WindowClock[],
    private readonly freezes: readonly Freeze[],
  ) {}

  /** The opening holding `at`, cut at the next freeze; undefined when closed or frozen. */
  openAt(at: Date): Opening | undefined {
    if (frozenAt(this.freezes, at)) return undefined;
    if (this.windows.length === 0) return this.cut(this.thawed(at), at);
    let holding: Opening | undefined;
    for (const w of this.windows) {
      const o = w.holding(at);
      if (o && (!holding || o.closesAt.getTime() > holding.closesAt.getTime())) holding = o;
    }
    return holding && this.cut(holding, at);
  }

  /** The first open moment at or after `at`, as the opening it is in; undefined: none ahead. */
  next(at: Date, horizonMs = HORIZON_MS): Opening | undefined {
    const end = at.getTime() + horizonMs;
    let t = at;
    for (let step = 0; step < MAX_STEPS && t.getTime() <= end; step++) {
      if (frozenAt(this.freezes, t)) {
        t = thawAt(this.freezes, t);
        continue;
      }
      const open = this.openAt(t);
      if (open) return open;
      let first: Opening | undefined;
      for (const w of this.windows) {
        const o = w.nextFrom(t);
        if (o && (!first || o.opensAt.getTime() < first.opensAt.getTime())) first = o;
      }
      if (!first) return undefined;
      t = first.opensAt;
    }
    return undefined;
  }

  /** With no windows, the time from `at` to the next freeze is one opening. */
  private thawed(at: Date): Opening {
    return {
      window: "outside every freeze",
      opensAt: at,
      closesAt: NEVER,
      timeZone: "UTC",
      opensAtLocal: localText(at, "UTC"),
    };
  }

  /** The opening as seen from `at`: opened no earlier than `at`, closed by the next freeze. */
  private cut(opening: Opening, at: Date): Opening {
    const opensAt = opening.opensAt.getTime() < at.getTime() ? at : opening.opensAt;
    const freeze = nextFreezeStart(this.freezes, opensAt);
    const closesAt =
      freeze && freeze.getTime() < opening.closesAt.getTime() ? freeze : opening.closesAt;
    return {
      ...opening,
      opensAt,
      closesAt,
      opensAtLocal: localText(opensAt, opening.timeZone),
    };
  }
}
