/**
 * When an account's certificates may be renewed: its renewal windows, its freezes and its
 * per-certificate policy, as declared (CERTSCHED_RENEWAL_WINDOWS, CERTSCHED_RENEWAL_FREEZES,
 * CERTSCHED_CERTIFICATE_POLICY, or an account's `windows`, `freezes` and `certificatePolicy`),
 * parsed and checked when the settings are loaded (app/config/windowSettings.ts). Nothing
 * declared: every due certificate is renewed whenever a sweep runs, as before.
 */

/** One renewal window: it opens at each time its cron start matches, for `durationMs`. */
export interface WindowRule {
  /** Where it was declared, as errors and surfaces name it: `CERTSCHED_RENEWAL_WINDOWS[0]`. */
  readonly label: string;
  /** The start as given: a five-field cron (minute hour day month day-of-week). */
  readonly start: string;
  /** How long each opening lasts, in ms (more than 0). */
  readonly durationMs: number;
  /** The IANA zone the start is read in (`Europe/Berlin`): DST as the zone says. */
  readonly timeZone: string;
  /** Name patterns (`*` any run, `?` one character) of the certificates it covers; unset: all. */
  readonly certificates?: readonly string[] | undefined;
}

/** A dated period in which nothing is renewed (outside the guarantee). */
export interface Freeze {
  /** Where it was declared: `CERTSCHED_RENEWAL_FREEZES[1]`. */
  readonly label: string;
  /** First instant frozen. */
  readonly from: Date;
  /** First instant no longer frozen (after `from`). */
  readonly to: Date;
  /** Why, in the operator's words (shown wherever a certificate waits for it). */
  readonly reason: string;
}

/** What to do with the certificates a pattern names. */
export type PolicyName = "renew" | "disabled";

/** A per-certificate policy: `disabled` is never renewed, still verified and watched. */
export interface CertificatePolicy {
  /** Where it was declared: `CERTSCHED_CERTIFICATE_POLICY[0]`. */
  readonly label: string;
  /** Names or patterns (`*`, `?`) of the certificates it applies to. */
  readonly certificates: readonly string[];
  readonly policy: PolicyName;
}

/** One account's renewal calendar. */
export interface RenewalCalendar {
  readonly windows: readonly WindowRule[];
  /** The account's own freezes and those declared for all accounts. */
  readonly freezes: readonly Freeze[];
  readonly policies: readonly CertificatePolicy[];
  /**
   * CERTSCHED_WINDOW_MARGIN in ms (default 3 days): a due certificate that would expire before
   * the next opening plus this margin is renewed outside its windows.
   */
  readonly marginMs: number;
  /**
   * CERTSCHED_WINDOW_JITTER in ms (default 30 min): each account starts within an opening at its
   * own offset, from 0 up to this (at most half the opening), so many accounts do not all
   * renew at its first minute.
   */
  readonly jitterMs: number;
  /** What the load found worth saying but not refusing (a gap longer than the list window). */
  readonly warnings: readonly string[];
}

/** CERTSCHED_WINDOW_MARGIN's default: the service completes within an hour, plus retries. */
export const DEFAULT_WINDOW_MARGIN_MS = 3 * 24 * 60 * 60 * 1000;

/** CERTSCHED_WINDOW_JITTER's default. */
export const DEFAULT_WINDOW_JITTER_MS = 30 * 60 * 1000;

/** Nothing declared: renew whenever due. */
export const OPEN_CALENDAR: RenewalCalendar = {
  windows: [],
  freezes: [],
  policies: [],
  marginMs: DEFAULT_WINDOW_MARGIN_MS,
  jitterMs: DEFAULT_WINDOW_JITTER_MS,
  warnings: [],
};

/** One opening of a window, as this account sees it (its jitter applied). */
export interface Opening {
  /** The window's label. */
  readonly window: string;
  /** When this account may start renewing in it. */
  readonly opensAt: Date;
  readonly closesAt: Date;
  readonly timeZone: string;
  /** `opensAt` in the window's zone: `2026-12-08 09:00 CET`. */
  readonly opensAtLocal: string;
}

/**
 * What the calendar says of one due certificate at one moment:
 * - `unrestricted`: no window covers it and no freeze holds: renew as before;
 * - `open`: inside one of its windows: renew;
 * - `waiting`: outside its windows (or frozen), and the next opening comes in time: not sent;
 * - `outside`: outside its windows, but waiting could let it expire (`expiry`) or outlast the
 *   CA's ARI window (`ari`): renew now, saying so;
 * - `disabled`: its policy says never renew.
 */
export type Timing =
  | { readonly kind: "unrestricted" }
  | { readonly kind: "open"; readonly opening: Opening }
  | {
      readonly kind: "waiting";
      /** The next opening it will be renewed in; unset: none within the horizon (frozen). */
      readonly next: Opening | undefined;
      /** The freeze holding it now, when one does. */
      readonly frozen?: Freeze | undefined;
      /** The last moment it can wait to: its expiry less the margin (or the ARI window's end). */
      readonly mustRenewBy: Date;
      /**
       * The next opening comes too late, so a later run renews it outside its windows: the last
       * run of the renewal timer before `mustRenewBy`.
       */
      readonly outsideLater?: true;
    }
  | {
      readonly kind: "outside";
      readonly because: "expiry" | "ari";
      readonly next: Opening | undefined;
      readonly frozen?: Freeze | undefined;
      readonly mustRenewBy: Date;
    }
  | { readonly kind: "disabled"; readonly policy: CertificatePolicy };
