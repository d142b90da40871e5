import type { Opening, Timing } from "./calendar.js";
import { utcText } from "./localTime.js";

/** `2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)`: an opening in its zone and in UTC. */
export function openingText(opening: Opening): string {
  return `${opening.opensAtLocal} (${utcText(opening.opensAt)})`;
}

function nextText(next: Opening | undefined): string {
  return next ? `the next window opens ${openingText(next)}` : "no window opens within ten years";
}

/** The words a result, a line or a page gives for a timing (empty for `unrestricted`/`open`). */
export function timingDetail(timing: Timing): string {
  switch (timing.kind) {
    case "unrestricted":
    case "open":
      return "";
    case "disabled":
      return `disabled by ${timing.policy.label}: never renewed (still verified and watched)`;
    case "waiting": {
      const frozen = timing.frozen
        ? `frozen until ${utcText(timing.frozen.to)} (${timing.frozen.reason}); `
        : "outside its renewal windows; ";
      if (timing.outsideLater) {
        return `${frozen}${nextText(timing.next)}, too late for it: a later run renews it outside its windows, by ${utcText(timing.mustRenewBy)}`;
      }
      return `${frozen}waiting: ${nextText(timing.next)}`;
    }
    case "outside": {
      const where = timing.frozen
        ? `in a freeze (${timing.frozen.reason})`
        : "outside its renewal windows";
      const why =
        timing.because === "ari"
          ? `the CA's renewal window (ARI) ends ${utcText(timing.mustRenewBy)}, before ${nextText(timing.next)}: the CA's word beats the calendar`
          : `it must be renewed by ${utcText(timing.mustRenewBy)} (its expiry less the margin) and ${nextText(timing.next)}${timing.next ? ", too late" : ""}`;
      return `renewed ${where}: ${why}`;
    }
  }
}
