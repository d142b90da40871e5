import type { Machine } from "./machine.js";

/** One line of a results table; `met` is set when the line has a goal. */
export interface Row {
  readonly measure: string;
  readonly value: string;
  readonly goal?: string;
  readonly met?: boolean;
}

export interface Section {
  readonly title: string;
  readonly rows: readonly Row[];
  /** How the figures were taken, in a sentence or two each. */
  readonly notes: readonly string[];
}

/** A check that makes `npm run bench` exit non-zero when it fails. */
export interface Gate {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** A GitHub-flavoured markdown table (also readable as plain text in a terminal). */
export function markdownTable(headers: readonly string[], rows: readonly string[][]): string {
  const lines = [
    `| ${headers.map(cell).join(" | ")} |`,
    `| ${headers.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ];
  return lines.join("\n");
}

function verdict(row: Row): string {
  if (row.met === undefined) return "";
  return row.met ? "met" : "**missed**";
}

export function sectionTable(section: Section): string {
  return markdownTable(
    ["Measure", "Value", "Goal", ""],
    section.rows.map((r) => [r.measure, r.value, r.goal ?? "", verdict(r)]),
  );
}

export function machineTable(machine: Machine): string {
  return markdownTable(
    ["", ""],
    [
      ["Date", machine.date],
      ["Node", machine.node],
      ["OS", machine.platform],
      ["CPU", machine.cpu],
      ["Cores", String(machine.cores)],
      ["Memory", `${machine.memoryGiB} GiB`],
      ["Load average (1 min) at start", String(machine.loadAtStart)],
      ["Commit", machine.commit],
    ],
  );
}

export interface ReportInput {
  readonly machine: Machine;
  readonly sections: readonly Section[];
  readonly gates: readonly Gate[];
  readonly durationMs: number;
  /** Extra prose after the results (method, deployment notes). */
  readonly appendix: string;
}

/** docs/performance.md, whole: written by every run, never edited by hand. */
export function renderReport(input: ReportInput): string {
  const failed = input.gates.filter((g) => !g.ok);
  const out = [
    "# Performance",
    "",
    "<!-- Written by `npm run bench` (bench/run.mjs); edit the bench, not this file. -->",
    "",
    "Medians and ratios measured side by side in one run of `npm run bench`. Absolute times " +
      "depend on the machine and on what else it runs; the ratios are the figures to compare.",
    "",
    "## Machine",
    "",
    machineTable(input.machine),
    "",
    `Bench duration: ${Math.round(input.durationMs / 1000)} s. Exit gates: ${
      failed.length === 0
        ? "all passed"
        : `**${failed.length} failed** (${failed.map((g) => g.name).join(", ")})`
    }.`,
    "",
  ];
  input.sections.forEach((section, i) => {
    out.push(`## ${i + 1}. ${section.title}`, "", sectionTable(section), "");
    for (const note of section.notes) out.push(`- ${note}`);
    if (section.notes.length > 0) out.push("");
  });
  out.push("## Exit gates", "");
  out.push(
    markdownTable(
      ["Gate", "Result", "Detail"],
      input.gates.map((g) => [g.name, g.ok ? "pass" : "**FAIL**", g.detail]),
    ),
    "",
  );
  if (input.appendix.trim()) out.push(input.appendix.trim(), "");
  return out.join("\n");
}
