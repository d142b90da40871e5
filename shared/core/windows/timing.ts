import type { CertificatePolicy, Freeze, Opening, RenewalCalendar, Timing } from "./calendar.js";

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
   * outside them as soon as waiting is unsafe.
   */
  readonly nextTick?: ((after: Date) => Date | undefined) | undefined;
}

/** One account's calendar, ready to answer for its certificates. */
export class AccountCalendar {
  constructor(
    readonly calendar: RenewalCalendar,
    readonly account: string,
  ) {}

  /** Whether anything is declared (windows, freezes or policies). */
  get restricted(): boolean {
    const c = this.calendar;
    return c.windows.length > 0 || c.freezes.length > 0 || c.policies.length > 0;
  }

  /** The policy that applies to a certificate (undefined: the default, renew). */
  policyOf(_name: string): CertificatePolicy | undefined {
    throw new Error("not yet");
  }

  /** What the calendar says of a due certificate now. */
  timing(_name: string, _input: TimingInput): Timing {
    throw new Error("not yet");
  }

  /** The first opening of the certificate's windows at or after `after`, not frozen. */
  nextOpening(_name: string, _after: Date): Opening | undefined {
    throw new Error("not yet");
  }

  /** The openings and freezes from `from` for `days` days, in order (the `windows` command). */
  upcoming(_from: Date, _days: number): { openings: Opening[]; freezes: Freeze[] } {
    throw new Error("not yet");
  }
}
