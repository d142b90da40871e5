import { frozenFields, openingFields } from "../renewal/windowNote.js";
import type { Opening, Timing } from "../windows/calendar.js";
import { localText, utcText } from "../windows/localTime.js";
import type { AccountCalendar, TimingInput } from "../windows/timing.js";
import { openingText, timingDetail } from "../windows/timingWords.js";

/**
 * A certificate's renewal window as people and programs see it (certsched due and status, GET
 * /api/certificates, the dashboard): the account's calendar (shared/core/windows) asked about
 * one certificate now. Pure: the calendar, the clock and the expiry come in.
 */

/** What the calendar says of one certificate now, in words and in instants (ISO-8601 UTC). */
export interface WindowView {
  /**
   * - `open`: inside one of its windows (renewed when due);
   * - `waiting`: outside its windows or frozen; renewed at the next opening;
   * - `outside`: waiting could let it expire (`expiry`) or outlast the CA's ARI window (`ari`):
   *   renewed outside its windows;
   * - `disabled`: its policy says never renew (still verified and watched).
   */
  readonly state: "open" | "waiting" | "outside" | "disabled";
  /** One line for people: `waiting: opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)`. */
  readonly text: string;
  /** Why it is renewed outside its windows (`outside` only). */
  readonly because?: "expiry" | "ari";
  /** The label of the window it is in, or of its next opening. */
  readonly window?: string;
  /** When the next opening starts (waiting, outside), or when the current one started (open). */
  readonly opensAt?: string;
  /** When the current (open) or next opening closes. */
  readonly closesAt?: string;
  /** `opensAt` in the window's zone: `2026-12-08 09:00 Europe/Berlin`. */
  readonly opensAtLocal?: string;
  /** `opensAt` in the window's zone and in UTC: `2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)`. */
  readonly opens?: string;
  readonly timeZone?: string;
  /** The freeze holding it now: its reason (the operator's words) and its end. */
  readonly frozen?: { readonly reason: string; readonly until: string };
  /** The last moment it can wait to (its expiry less the margin, or the ARI window's end). */
  readonly mustRenewBy?: string;
  /**
   * Waiting, but its next opening comes too late: the last timer run before `mustRenewBy`
   * renews it outside its windows.
   */
  readonly outsideLater?: true;
  /** The policy's label (`CERTSCHED_CERTIFICATE_POLICY[0]`), when `disabled`. */
  readonly policy?: string;
}

/** A certificate view's window part: present only when the account declares a calendar. */
export interface WindowPart {
  /** null: the calendar declares nothing that applies to it (renewed whenever due). */
  readonly window?: WindowView | null;
}

/** What windowOf needs of a certificate: its expiry (when known) and the CA's ARI end. */
export interface WindowFacts {
  readonly now: Date;
  readonly expiry?: Date | undefined;
  readonly ariEnd?: Date | undefined;
  readonly nextTick?: TimingInput["nextTick"];
}

/** `2026-12-08 16:00 Europe/Berlin (2026-12-08 15:00 UTC)`: an instant in a zone and in UTC. */
export function localAndUtc(at: Date, timeZone: string): string {
  return `${localText(at, timeZone)} (${utcText(at)})`;
}

/** An opening's fields, as a result's window note has them, and `opens` in words. */
function openingPart(opening: Opening | undefined) {
  return opening ? { ...openingFields(opening), opens: openingText(opening) } : {};
}

/** The words of a waiting timing: when it opens, or the freeze that holds it. */
function waitingText(timing: Extract<Timing, { kind: "waiting" }>): string {
  // Its next opening comes too late: a later run renews it outside its windows (and when).
  if (timing.outsideLater) return `waiting: ${timingDetail(timing)}`;
  const frozen = timing.frozen ? ` (frozen: ${timing.frozen.reason})` : "";
  if (timing.next) return `waiting${frozen}: opens ${openingText(timing.next)}`;
  return `waiting${frozen}: ${timingDetail(timing)}`;
}

/** The view of a timing; null for `unrestricted` (nothing declared applies). */
export function windowViewOf(timing: Timing): WindowView | null {
  switch (timing.kind) {
    case "unrestricted":
      return null;
    case "open":
      return {
        state: "open",
        text: `open until ${localAndUtc(timing.opening.closesAt, timing.opening.timeZone)}`,
        ...openingPart(timing.opening),
      };
    case "waiting":
      return {
        state: "waiting",
        text: waitingText(timing),
        ...openingPart(timing.next),
        ...frozenFields(timing),
        mustRenewBy: timing.mustRenewBy.toISOString(),
        ...(timing.outsideLater ? { outsideLater: true } : {}),
      };
    case "outside":
      return {
        state: "outside",
        text: timingDetail(timing),
        because: timing.because,
        ...openingPart(timing.next),
        ...frozenFields(timing),
        mustRenewBy: timing.mustRenewBy.toISOString(),
      };
    case "disabled":
      return {
        state: "disabled",
        text: `disabled (policy ${timing.policy.label})`,
        policy: timing.policy.label,
      };
  }
}

/**
 * The window part of one certificate: nothing when the account declares no calendar; else the
 * calendar's timing (with the expiry known), or its next opening (expiry unknown).
 */
export function windowOf(
  calendar: AccountCalendar | undefined,
  name: string,
  facts: WindowFacts,
): WindowPart {
  if (!calendar?.restricted) return {};
  const { now, expiry } = facts;
  if (expiry !== undefined) {
    const input = { now, expiry, ariEnd: facts.ariEnd, nextTick: facts.nextTick };
    return { window: windowViewOf(calendar.timing(name, input)) };
  }
  const policy = calendar.policyOf(name);
  if (policy?.policy === "disabled") return { window: windowViewOf({ kind: "disabled", policy }) };
  const next = calendar.nextOpening(name, now);
  if (!next) return { window: null };
  if (next.opensAt.getTime() <= now.getTime()) {
    return { window: windowViewOf({ kind: "open", opening: next }) };
  }
  return {
    window: { state: "waiting", text: `waiting: opens ${openingText(next)}`, ...openingPart(next) },
  };
}

/**
 * The words of a window beside a status (the dashboard, a status's `label`): "waiting for
 * window (opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC))", "disabled (policy
 * ...)", "renewed outside its renewal windows: ...", "window open until ...".
 */
export function windowWords(window: WindowView): string {
  switch (window.state) {
    case "waiting": {
      const frozen = window.frozen ? `frozen: ${window.frozen.reason}; ` : "";
      const opens = window.opens ? `opens ${window.opens}` : "no opening in sight";
      return `waiting for window (${frozen}${opens})`;
    }
    case "disabled":
    case "outside":
      return window.text;
    case "open":
      return `window ${window.text}`;
  }
}
