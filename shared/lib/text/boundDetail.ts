import { escapeControl } from "./escapeControl.js";

/**
 * Every verification result's `detail` is bounded here, whatever made it: a certificate may
 * carry a 30,000-character name, a vault or a server may say anything, and the detail is one
 * line for people in the CLI's table, an HTTP answer, a stored row and a webhook message.
 */

/** Longest detail, in characters after escaping, the ellipsis included. */
export const MAX_DETAIL = 500;

const ELLIPSIS = "…";

/** An escape escapeControl writes (`\u{1b}`), which a cut must not split. */
const PARTIAL_ESCAPE = /\\(?:u(?:\{[0-9a-f]*)?)?$/;

/**
 * `text` with its control characters escaped, cut to `max` characters (an ellipsis marks the
 * cut). The cut never splits an escape or a surrogate pair, so what is left reads as it would
 * have whole. Text already escaped is not changed by escaping again.
 */
export function boundDetail(text: string, max: number = MAX_DETAIL): string {
  const escaped = escapeControl(text);
  if (escaped.length <= max) return escaped;
  let kept = escaped.slice(0, Math.max(0, max - ELLIPSIS.length));
  // A high surrogate whose low half was cut off would be a broken character.
  if (/[\ud800-\udbff]$/.test(kept)) kept = kept.slice(0, -1);
  kept = kept.replace(PARTIAL_ESCAPE, "");
  return `${kept}${ELLIPSIS}`;
}

/**
 * `cause` and `note` joined by "; ", at most `max` characters: the note (certsched's own words,
 * short) is kept whole and the cause is cut to make room.
 */
export function boundWithNote(cause: string, note: string, max: number = MAX_DETAIL): string {
  const tail = `; ${escapeControl(note)}`;
  return `${boundDetail(cause, Math.max(ELLIPSIS.length, max - tail.length))}${tail}`;
}

/** `result` with its detail bounded: the one place every result's detail passes. */
export function withBoundDetail<T extends { readonly detail: string }>(result: T): T {
  return { ...result, detail: boundDetail(result.detail) };
}
