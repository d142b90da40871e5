import type { Opening, Timing } from "../windows/calendar.js";
import { timingDetail } from "../windows/timingWords.js";
import type { ResultReason, WindowNote } from "./summary.js";

/** The note's fields of an opening: its window, when it opens and closes, in UTC and locally. */
export function openingFields(
  opening: Opening | undefined,
): Pick<WindowNote, "window" | "opensAt" | "closesAt" | "opensAtLocal" | "timeZone"> {
  if (!opening) return {};
  return {
    window: opening.window,
    opensAt: opening.opensAt.toISOString(),
    closesAt: opening.closesAt.toISOString(),
    opensAtLocal: opening.opensAtLocal,
    timeZone: opening.timeZone,
  };
}

/** The note's `frozen` field: the freeze holding the certificate, when one does. */
export function frozenFields(
  timing: Extract<Timing, { kind: "waiting" | "outside" }>,
): Pick<WindowNote, "frozen"> {
  const f = timing.frozen;
  return f ? { frozen: { reason: f.reason, until: f.to.toISOString() } } : {};
}

/** The words that say a certificate was (or would be) renewed outside its renewal windows. */
export const OUTSIDE_WORDS = "renewed outside its renewal windows";

/**
 * What a result says of its certificate's renewal calendar (summary.ts WindowNote), or undefined
 * when the calendar does not restrict it (`unrestricted`).
 */
export function windowNote(timing: Timing): WindowNote | undefined {
  switch (timing.kind) {
    case "unrestricted":
      return undefined;
    case "open":
      return {
        state: "open",
        ...openingFields(timing.opening),
        detail: `inside its renewal window ${timing.opening.window} (open until ${timing.opening.closesAt.toISOString()})`,
      };
    case "disabled":
      return { state: "disabled", policy: timing.policy.label, detail: timingDetail(timing) };
    default: {
      const words = timingDetail(timing);
      return {
        state: timing.kind,
        ...(timing.kind === "outside" ? { because: timing.because } : {}),
        ...openingFields(timing.next),
        ...frozenFields(timing),
        mustRenewBy: timing.mustRenewBy.toISOString(),
        // An outside renewal says it was renewed, and why, whatever the calendar's own words are.
        detail:
          timing.kind === "outside" && !words.startsWith("renewed ")
            ? `${OUTSIDE_WORDS}: ${words}`
            : words,
      };
    }
  }
}

/** The reason constant of a certificate its calendar holds back: a freeze, or no window open. */
export function heldReason(timing: Timing): ResultReason | undefined {
  if (timing.kind === "disabled") return "PolicyDisabled";
  if (timing.kind !== "waiting") return undefined;
  return timing.frozen ? "Frozen" : "OutsideWindow";
}

/**
 * A renewal's detail as the calendar colours it: an outside one starts with why (`renewed outside
 * its renewal windows: …; <the service's words>`); any other is as given.
 */
export function renewalDetail(note: WindowNote | undefined, detail: string): string {
  return note?.state === "outside" ? `${note.detail}; ${detail}` : detail;
}
