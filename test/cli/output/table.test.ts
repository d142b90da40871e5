import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { type Column, renderTable } from "../../../cli/output/table.js";
import { visibleWidth } from "../../../cli/output/text.js";
import { escapeControl } from "../../../shared/lib/text/escapeControl.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const LINE_BREAK_OR_ESCAPE = /[\n\r\u001b]/;
const runs = Number(process.env.FC_NUM_RUNS ?? 200);

// Names as an upstream may send them: ASCII, accents, CJK (two columns), emoji, controls.
const cellText = fc.string({
  unit: fc.oneof(
    fc.constantFrom("a", "-", ".", " ", "é", "名", "證", "🔒", "\u001b", "\n", "\t", "\u0085"),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  maxLength: 60,
});

const COLUMNS: readonly Column[] = [
  { heading: "CERTIFICATE", shrink: 1 },
  { heading: "TARGET", shrink: 2 },
  { heading: "EXPIRES (UTC)" },
  { heading: "OUTCOME" },
];

test.prop(
  [
    fc.array(fc.array(cellText, { minLength: 4, maxLength: 4 }), { maxLength: 20 }),
    fc.integer({ min: 20, max: 200 }),
  ],
  { numRuns: runs },
)("every line fits the terminal, whatever the cells hold", (rows, width) => {
  const lines = renderTable(COLUMNS, rows, { header: (s) => s, width });

  expect(lines).toHaveLength(rows.length + 1);
  for (const line of lines) {
    expect(visibleWidth(line)).toBeLessThanOrEqual(width);
    expect(line).not.toMatch(LINE_BREAK_OR_ESCAPE);
  }
});

test.prop([fc.array(fc.array(cellText, { minLength: 4, maxLength: 4 }), { maxLength: 20 })], {
  numRuns: runs,
})("through a pipe nothing is cut: every cell is there whole, escaped", (rows) => {
  const lines = renderTable(COLUMNS, rows, { header: (s) => s, width: undefined });

  rows.forEach((row, i) => {
    const line = lines[i + 1] ?? "";
    for (const cell of row) expect(line).toContain(escapeControl(cell).trimEnd());
  });
});
