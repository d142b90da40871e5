import { createRequire } from "node:module";
import { escapeControl } from "../../shared/lib/text/escapeControl.js";

/**
 * Terminal-width helpers. Widths are visible columns (string-width: East Asian wide characters
 * count 2, ANSI colour codes count 0), never `.length`, so a table lines up and a line never
 * runs past the terminal's edge whatever the names hold.
 */

// Printable ASCII is one column per character: the common case skips string-width's segmenter,
// which matters for tables of 100,000+ rows.
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

// string-width and wrap-ansi take some 20 ms to load (their Unicode tables): required on the
// first text that needs them (not plain ASCII, or wrapped for a terminal), so a command's
// start-up, and its output to a pipe, never pay for them. require() of an ES module
// is synchronous on every Node certsched runs on (engines: 22.12+, 24, and 20.19+ locally; require(esm)).
const load = createRequire(import.meta.url);
let widthLib: typeof import("string-width").default | undefined;
let wrapLib: typeof import("wrap-ansi").default | undefined;

function stringWidth(text: string): number {
  widthLib ??= (load("string-width") as typeof import("string-width")).default;
  return widthLib(text);
}

function wrapAnsi(text: string, columns: number, options: import("wrap-ansi").Options): string {
  wrapLib ??= (load("wrap-ansi") as typeof import("wrap-ansi")).default;
  return wrapLib(text, columns, options);
}

/** Visible width of a text, ANSI codes ignored. */
export function visibleWidth(text: string): number {
  return PLAIN_ASCII.test(text) ? text.length : stringWidth(text);
}

/**
 * Text from elsewhere (a certificate name, an upstream's words) made safe for one terminal
 * line: every control character escaped, so it can neither start a new line nor drive the
 * terminal (window titles, screen clears, hyperlinks).
 */
export function oneLine(text: string): string {
  return escapeControl(text);
}

/** `text` cut to at most `room` columns, ending in "…" when anything was cut. Plain text only. */
export function cutToWidth(text: string, room: number): string {
  if (visibleWidth(text) <= room) return text;
  if (room <= 0) return "";
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = visibleWidth(ch);
    if (used + w > room - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` visible columns. */
export function padToWidth(text: string, width: number): string {
  const pad = width - visibleWidth(text);
  return pad > 0 ? text + " ".repeat(pad) : text;
}

/**
 * Wraps prose (ANSI colours allowed) to `width` columns, the first line prefixed with `indent`,
 * the others with `hanging` (default: the same); undefined (a pipe) only indents. Long words
 * are broken, never cut: this is for what must be read in full (causes, messages).
 */
export function wrapToWidth(
  text: string,
  width: number | undefined,
  indent = "",
  hanging = indent,
): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    if (width === undefined) {
      lines.push(`${indent}${paragraph}`);
      continue;
    }
    const room = Math.max(width - Math.max(visibleWidth(indent), visibleWidth(hanging)), 10);
    wrapAnsi(paragraph, room, { hard: true })
      .split("\n")
      .forEach((line, i) => {
        lines.push(`${i === 0 ? indent : hanging}${line}`);
      });
  }
  return lines;
}

/**
 * One already-composed line made to fit `width`, as a last resort when even the narrowest
 * table does not fit: the visible part is kept, colour codes closed.
 */
export function fitLine(line: string, width: number | undefined): string {
  if (width === undefined || visibleWidth(line) <= width) return line;
  const first = wrapAnsi(line, Math.max(width - 1, 1), {
    hard: true,
    trim: false,
    wordWrap: false,
  }).split("\n")[0];
  return `${first ?? ""}…`;
}

/**
 * Appends `more` to `lines` one by one: `lines.push(...more)` passes every element as an
 * argument and overflows the call stack for a long enough list (150,000 table rows did).
 */
export function append(lines: string[], more: readonly string[]): void {
  for (const line of more) lines.push(line);
}
