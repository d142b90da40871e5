import type { Paint } from "./color.js";
import { cutToWidth, fitLine, oneLine, padToWidth, visibleWidth } from "./text.js";

/** One cell: its text, and optionally how to colour it (applied after padding, so widths hold). */
export type Cell = string | { readonly text: string; readonly paint?: Paint | undefined };

export interface Column {
  readonly heading: string;
  /**
   * May be cut (with "…") to fit the terminal: the leading, descriptive columns (certificate
   * name, target) have it; the expiry and the outcome never, and nothing wraps. Higher numbers
   * are cut first (down to a few characters), then the next: the target goes before the name.
   */
  readonly shrink?: number;
}

export interface TableOptions {
  readonly header: Paint;
  /** Terminal width; undefined (a pipe) never cuts. */
  readonly width: number | undefined;
}

const GAP = "  ";
/** A cut column keeps at least this many columns (or its whole text when shorter). */
const MIN_SHRUNK = 10;

function textOf(cell: Cell | undefined): string {
  // Cells hold names and words from elsewhere: never a control character on the terminal.
  return oneLine(cell === undefined ? "" : typeof cell === "string" ? cell : cell.text);
}

/** Each column's natural width: a loop, not Math.max(...rows), which overflows the stack. */
function naturalWidths(
  columns: readonly Column[],
  texts: readonly (readonly string[])[],
): number[] {
  const widths = columns.map((c) => visibleWidth(c.heading));
  for (const row of texts) {
    for (let i = 0; i < widths.length; i++) {
      const w = visibleWidth(row[i] ?? "");
      if (w > (widths[i] ?? 0)) widths[i] = w;
    }
  }
  return widths;
}

/**
 * Narrows the shrinkable columns until the table fits `width` (if it can): the highest `shrink`
 * first, each down to MIN_SHRUNK, widest first among equals.
 */
function fitWidths(
  columns: readonly Column[],
  natural: readonly number[],
  width: number,
): number[] {
  const widths = [...natural];
  let excess = widths.reduce((sum, w) => sum + w, 0) + GAP.length * (widths.length - 1) - width;
  while (excess > 0) {
    let pick = -1;
    for (let i = 0; i < widths.length; i++) {
      const order = columns[i]?.shrink;
      const floor = Math.min(natural[i] ?? 0, MIN_SHRUNK);
      if (order === undefined || (widths[i] ?? 0) <= floor) continue;
      const best = pick === -1 ? undefined : columns[pick]?.shrink;
      if (
        best === undefined ||
        order > best ||
        (order === best && (widths[i] ?? 0) > (widths[pick] ?? 0))
      ) {
        pick = i;
      }
    }
    if (pick === -1) break;
    widths[pick] = (widths[pick] ?? 0) - 1;
    excess -= 1;
  }
  return widths;
}

/**
 * Left-aligned columns separated by two spaces; returns the lines without trailing newline.
 * On a terminal every line fits its width: the shrinkable columns are cut first, and only when
 * even they cannot make room is the line itself cut. Any number of rows renders.
 */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly Cell[])[],
  options: TableOptions,
): string[] {
  const texts = rows.map((row) => columns.map((_, i) => textOf(row[i])));
  const natural = naturalWidths(columns, texts);
  const widths = options.width === undefined ? natural : fitWidths(columns, natural, options.width);
  const last = columns.length - 1;
  const line = (cellTexts: readonly string[], paints: readonly (Paint | undefined)[]) => {
    const composed = cellTexts
      .map((raw, i) => {
        const room = widths[i] ?? 0;
        const cut = cutToWidth(raw, room);
        const text = i === last ? cut : padToWidth(cut, room);
        const paint = paints[i];
        return paint ? paint(text) : text;
      })
      .join(GAP)
      .trimEnd();
    return fitLine(composed, options.width);
  };
  const lines = [
    line(
      columns.map((c) => oneLine(c.heading)),
      columns.map(() => options.header),
    ),
  ];
  rows.forEach((row, r) => {
    lines.push(
      line(
        texts[r] ?? [],
        columns.map((_, i) => {
          const cell = row[i];
          return cell === undefined || typeof cell === "string" ? undefined : cell.paint;
        }),
      ),
    );
  });
  return lines;
}
