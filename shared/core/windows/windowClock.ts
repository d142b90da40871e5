import type { Cron } from "croner";
import type { Opening, WindowRule } from "./calendar.js";
import { localText } from "./localTime.js";
import { startCron } from "./windowStart.js";

/**
 * One window as one account sees it: its cron in its zone, its duration, and the account's
 * offset into each opening (the jitter), so the openings it answers are the account's.
 */
export class WindowClock {
  private readonly cron: Cron;

  constructor(
    readonly rule: WindowRule,
    /** How long after each start the account begins, in ms (less than half the duration). */
    readonly offsetMs: number,
  ) {
    this.cron = startCron(rule.start, rule.timeZone);
  }

  /** The opening whose start is `start`, as the account sees it. */
  openingOf(start: Date): Opening {
    const opensAt = new Date(start.getTime() + this.offsetMs);
    return {
      window: this.rule.label,
      opensAt,
      closesAt: new Date(start.getTime() + this.rule.durationMs),
      timeZone: this.rule.timeZone,
      opensAtLocal: localText(opensAt, this.rule.timeZone),
    };
  }

  /** The account's opening that holds `at` (opensAt ≤ at < closesAt), if any. */
  holding(at: Date): Opening | undefined {
    // The last start at or before at - offset: a later start closes later, so if it does not
    // hold `at`, no earlier one does.
    const latest = at.getTime() - this.offsetMs;
    const start = this.startAtOrBefore(latest);
    if (!start) return undefined;
    const opening = this.openingOf(start);
    return at.getTime() < opening.closesAt.getTime() ? opening : undefined;
  }

  /** The account's first opening whose opensAt is at or after `at`. */
  nextFrom(at: Date): Opening | undefined {
    const earliest = at.getTime() - this.offsetMs;
    let start = this.cron.nextRun(new Date(earliest - 1000));
    // croner answers whole seconds strictly after its reference; step past any before `earliest`.
    while (start && start.getTime() < earliest) start = this.cron.nextRun(start);
    return start ? this.openingOf(start) : undefined;
  }

  private startAtOrBefore(ms: number): Date | undefined {
    const [candidate] = this.cron.previousRuns(1, new Date(Math.floor(ms / 1000) * 1000 + 1000));
    if (!candidate) return undefined;
    if (candidate.getTime() <= ms) return candidate;
    const [earlier] = this.cron.previousRuns(1, candidate);
    return earlier;
  }
}

/** FNV-1a of the account's name, as a fraction in [0, 1): the same account, the same place. */
function fraction(account: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(account)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 2 ** 32;
}

/**
 * The account's offset into each opening of a window: spread over up to `jitterMs`, at most half
 * the window's duration, in whole seconds.
 */
export function jitterOffset(account: string, durationMs: number, jitterMs: number): number {
  const spread = Math.max(0, Math.min(jitterMs, Math.floor(durationMs / 2)));
  return Math.floor((fraction(account) * spread) / 1000) * 1000;
}
