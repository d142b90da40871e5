import type { Paint } from "./color.js";

/** One cell: its text, and optionally how to colour it (applied after padding, so widths hold). */
export type Cell = string | { readonly text: string; readonly paint?: Paint };

export interface TableOptions {
  readonly header: Paint;
  /** Terminal width: the last column is cut to fit; undefined (a pipe) never cuts. */
  readonly width: number | undefined;
}

const GAP = "  ";

function textOf(cell: Cell): string {
  return typeof cell === "string" ? cell : cell.text;
}

function cut(text: string, room: number): string {
  if (text.length <= room) return text;
  return room <= 1 ? text.slice(0, Math.max(room, 0)) : `${text.slice(0, room - 1)}…`;
}

/** Left-aligned columns separated by two spaces; returns the lines without trailing newline. */
export function renderTable(
  headings: readonly string[],
  rows: readonly (readonly Cell[])[],
  options: TableOptions,
): string[] {
  const widths = headings.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => textOf(row[i] ?? "").length)),
  );
  const last = headings.length - 1;
  const lead = widths.slice(0, last).reduce((sum, w) => sum + w + GAP.length, 0);
  const lastRoom = options.width === undefined ? Number.POSITIVE_INFINITY : options.width - lead;
  const line = (cells: readonly Cell[], heading: boolean) =>
    headings
      .map((_, i) => {
        const cell = cells[i] ?? "";
        const raw = textOf(cell);
        const text = i === last ? cut(raw, lastRoom) : raw.padEnd(widths[i] ?? 0);
        const paint = heading ? options.header : typeof cell === "string" ? undefined : cell.paint;
        return paint ? paint(text) : text;
      })
      .join(GAP)
      .trimEnd();
  return [line(headings, true), ...rows.map((row) => line(row, false))];
}
