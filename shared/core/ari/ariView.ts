import type { InventoryRecord } from "../ports/inventory.js";
import { ariWindowText, windowStarted } from "./ariRecord.js";

/** The CA's renewal window as people and programs see it (status, the API, the dashboard). */
export interface AriView {
  readonly start: string;
  readonly end: string;
  /** The CA's explanation: http(s) only (checked on the way in and again here); else null. */
  readonly explanationUrl: string | null;
  /** The window has started: certsched renews it now (trigger `ari`). */
  readonly renewNow: boolean;
  /** `ARI window 2026-12-01..2026-12-03 (renew now)`. */
  readonly text: string;
  /** The last ask's failure (the window shown is the last one the CA gave), else null. */
  readonly problem: string | null;
}

/** A certificate view's ARI part: `ari`, null when no window is known. */
export interface AriPart {
  /** The CA's renewal window (ARI, RFC 9773); null: none known (or no ARI for its issuer). */
  readonly ari: AriView | null;
}

/** Only an http(s) URL is ever shown as a link or text; anything else is dropped. */
export function safeExplanationUrl(text: string | undefined): string | null {
  if (!text) return null;
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

export function ariPart(inventory: Pick<InventoryRecord, "ari"> | undefined, now: Date): AriPart {
  const ari = inventory?.ari;
  const text = ariWindowText(ari, now);
  if (!ari?.start || !ari.end || text === undefined) return { ari: null };
  return {
    ari: {
      start: ari.start.toISOString(),
      end: ari.end.toISOString(),
      explanationUrl: safeExplanationUrl(ari.explanationUrl),
      renewNow: windowStarted(ari, now),
      text,
      problem: ari.problem ?? null,
    },
  };
}

/** One line for people: the window, and the CA's explanation when it has one. */
export function ariLine(view: AriView): string {
  const why = view.explanationUrl ? `, explained at ${view.explanationUrl}` : "";
  const problem = view.problem ? ` (the CA's last answer failed: ${view.problem})` : "";
  return `${view.text}${why}${problem}`;
}
