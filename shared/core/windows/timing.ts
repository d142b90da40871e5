import type {
  CertificatePolicy,
  Freeze,
  Opening,
  RenewalCalendar,
  Timing,
  WindowRule,
} from "./calendar.js";
import { frozenAt } from "./freezes.js";
import { OpenTimes } from "./openTimes.js";
import { jitterOffset, WindowClock } from "./windowClock.js";
import { patternTest } from "./windowStart.js";

/** What the calendar needs to know of one certificate at one moment. */
export interface TimingInput {
  readonly now: Date;
  /** The certificate's expiry. */
  readonly expiry: Date;
  /** The end of the CA's suggested window (ARI), when the renewal follows it. */
  readonly ariEnd?: Date | undefined;
  /**
   * The next time the renewal timer fires after a moment (CERTSCHED_RENEWAL_SCHEDULE), for
   * renewing outside the windows at the last safe sweep and not before; unset: unknown, renewed
   * outside them as soon as waiting for the next opening is unsafe.
   */
  readonly nextTick?: ((after: Date) => Date | undefined) | undefined;
}

/** Openings a first timer firing is looked for in, before waiting counts as unsafe. */
const CHANCE_OPENINGS = 50;

/** Moments kept per calendar before the cache starts over. */
const MOMENTS_KEPT = 512;

/** What the windows say at one moment, whatever the certificate's expiry. */
interface Moment {
  readonly open: Opening | undefined;
  readonly next: Opening | undefined;
  /** The first moment it would be renewed inside a window (see firstChance). */
  readonly chance: Date | undefined;
}

/** One account's calendar, ready to answer for its certificates. */
export class AccountCalendar {
  private readonly clocks: readonly WindowClock[];
  private readonly covers: readonly ((name: string) => boolean)[];
  private readonly byName = new Map<string, OpenTimes>();
  private readonly moments = new Map<string, Moment>();
  private tickOfMoments: TimingInput["nextTick"];

  constructor(
    readonly calendar: RenewalCalendar,
    readonly account: string,
  ) {
    this.clocks = calendar.windows.map(
      (w) => new WindowClock(w, jitterOffset(account, w.durationMs, calendar.jitterMs)),
    );
    this.covers = calendar.windows.map((w) => coverTest(w));
  }

  /** Whether anything is declared (windows, freezes or policies). */
  get restricted(): boolean {
    const c = this.calendar;
    return c.windows.length > 0 || c.freezes.length > 0 || c.policies.length > 0;
  }

  /** The policy that applies to a certificate (undefined: the default, renew). */
  policyOf(name: string): CertificatePolicy | undefined {
    const { policies } = this.calendar;
    const exact = policies.find((p) => p.certificates.includes(name));
    return exact ?? policies.find((p) => p.certificates.some((c) => patternTest(c)(name)));
  }

  /** The windows that cover a certificate (none: it may be renewed at any time not frozen). */
  windowsOf(name: string): readonly WindowRule[] {
    return this.calendar.windows.filter((_, i) => this.covers[i]?.(name));
  }

  /** What the calendar says of a due certificate now. */
  timing(name: string, input: TimingInput): Timing {
    const policy = this.policyOf(name);
    if (policy?.policy === "disabled") return { kind: "disabled", policy };
    const { now, nextTick } = input;
    const { open, next, chance } = this.momentOf(name, now, nextTick);
    if (open) {
      return this.windowsOf(name).length === 0
        ? { kind: "unrestricted" }
        : { kind: "open", opening: open };
    }
    const frozen = frozenAt(this.calendar.freezes, now);
    const marginEnd = input.expiry.getTime() - this.calendar.marginMs;
    const ari = input.ariEnd !== undefined && input.ariEnd.getTime() < marginEnd;
    const mustRenewBy = new Date(ari && input.ariEnd ? input.ariEnd.getTime() : marginEnd);
    const waitForWindow = chance !== undefined && chance.getTime() <= mustRenewBy.getTime();
    // Waiting for the window is unsafe: wait all the same while a later run still comes in time.
    const later = nextTick?.(now);
    const waitForLastRun =
      !waitForWindow && later !== undefined && later.getTime() <= mustRenewBy.getTime();
    const base = { next, mustRenewBy, ...(frozen ? { frozen } : {}) };
    if (waitForWindow) return { kind: "waiting", ...base };
    if (waitForLastRun) return { kind: "waiting", ...base, outsideLater: true };
    return { kind: "outside", because: ari ? "ari" : "expiry", ...base };
  }

  /** The first open moment of the certificate's windows at or after `after`, not frozen. */
  nextOpening(name: string, after: Date): Opening | undefined {
    return this.timesOf(name).next(after);
  }

  /** The openings of each window and the freezes from `from` for `days` days, in order. */
  upcoming(from: Date, days: number): { openings: UpcomingOpening[]; freezes: Freeze[] } {
    const end = from.getTime() + days * 24 * 60 * 60 * 1000;
    const openings: UpcomingOpening[] = [];
    for (const clock of this.clocks)
      openings.push(...upcomingOf(clock, from, end, this.calendar.freezes));
    openings.sort((a, b) => a.opensAt.getTime() - b.opensAt.getTime());
    const freezes = this.calendar.freezes
      .filter((f) => f.to.getTime() > from.getTime() && f.from.getTime() < end)
      .toSorted((a, b) => a.from.getTime() - b.from.getTime());
    return { openings, freezes };
  }

  /**
   * Whether the certificate's windows are open at `now`, the next opening and the first timer
   * run inside one: the same for every certificate of the same windows within the same second
   * (openings start on whole seconds), so a sweep of thousands asks croner once a second.
   */
  private momentOf(name: string, now: Date, nextTick: TimingInput["nextTick"]): Moment {
    if (nextTick !== this.tickOfMoments) {
      this.moments.clear();
      this.tickOfMoments = nextTick;
    }
    const times = this.timesOf(name);
    const second = Math.floor(now.getTime() / 1000) * 1000;
    const key = `${this.keyOf(name)}|${second}|${now.getTime() === second ? "" : "+"}`;
    let moment = this.moments.get(key);
    if (!moment) {
      const open = times.openAt(now);
      const next = open ? undefined : times.next(now);
      moment = { open, next, chance: next && firstChance(times, next, nextTick) };
      if (this.moments.size >= MOMENTS_KEPT) this.moments.clear();
      this.moments.set(key, moment);
    }
    return moment;
  }

  private keyOf(name: string): string {
    return this.clocks.map((_, i) => (this.covers[i]?.(name) ? "1" : "0")).join("");
  }

  private timesOf(name: string): OpenTimes {
    const key = this.keyOf(name);
    let times = this.byName.get(key);
    if (!times) {
      const clocks = this.clocks.filter((_, i) => key[i] === "1");
      times = new OpenTimes(clocks, this.calendar.freezes);
      this.byName.set(key, times);
    }
    return times;
  }
}

/** An opening in the `windows` listing: which certificates it covers, and a freeze over it. */
export type UpcomingOpening = Opening & {
  readonly certificates?: readonly string[] | undefined;
  /** The freeze holding its start, when one does (no renewal then). */
  readonly frozenBy?: Freeze | undefined;
};

function coverTest(w: WindowRule): (name: string) => boolean {
  if (!w.certificates) return () => true;
  const tests = w.certificates.map(patternTest);
  return (name) => tests.some((t) => t(name));
}

function upcomingOf(
  clock: WindowClock,
  from: Date,
  end: number,
  freezes: readonly Freeze[],
): UpcomingOpening[] {
  const out: UpcomingOpening[] = [];
  let o = clock.holding(from) ?? clock.nextFrom(from);
  while (o && o.opensAt.getTime() < end && out.length < 1000) {
    const frozenBy = frozenAt(freezes, o.opensAt);
    out.push({ ...o, certificates: clock.rule.certificates, ...(frozenBy ? { frozenBy } : {}) });
    o = clock.nextFrom(new Date(o.opensAt.getTime() + 1000));
  }
  return out;
}

/**
 * The first moment the certificate would be renewed inside its windows from `opening` on: the
 * opening itself without a timer, else the timer's first firing inside an opening.
 */
function firstChance(
  times: OpenTimes,
  opening: Opening,
  nextTick: TimingInput["nextTick"],
): Date | undefined {
  if (!nextTick) return opening.opensAt;
  let o: Opening | undefined = opening;
  for (let i = 0; o && i < CHANCE_OPENINGS; i++) {
    const tick = nextTick(new Date(o.opensAt.getTime() - 1));
    if (tick && tick.getTime() < o.closesAt.getTime()) return tick;
    o = times.next(o.closesAt);
  }
  return undefined;
}
