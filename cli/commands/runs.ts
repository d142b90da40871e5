import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import { palette } from "../output/color.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { withStorage } from "../storage.js";
import { integerFlag } from "../usage.js";
import { minute } from "./status.js";

const HELP = `Usage: certsched runs [--last N] [--json]

Shows the latest sweeps, newest first: what started each (timer, http, cli,
queue), when, how many certificates were due, renewed, failed, stuck or not
attempted, and why a failed run failed. Changes nothing.

Reads the function app's storage: CERTSCHED_LEDGER_TABLE_URI (with your own
Azure identity, DefaultAzureCredential: az login) or AzureWebJobsStorage.

Options:
  --last N     How many runs, 1 to 1000 (default 10).
  --json       Print one JSON document: { "runs": [ { "runId", "trigger",
               "startedAt", "finishedAt", "dryRun", "failed", "ledger",
               "counts", "problems" } ], "invalid": [ rows not read ] }.
  -h, --help   Show this help.

Exit codes: 0 shown (also when a run failed: this command only reads); 1 the
storage could not be read; 2 usage or configuration error.
`;

export const runsCommand: Command = {
  name: "runs",
  help: HELP,
  options: { ...JSON_OPTION, last: { type: "string" } },
  maxPositionals: 0,
  run: async (args, io) => {
    const last = integerFlag("runs", "--last", args.values.last, 1, 1000) ?? 10;
    return withStorage(io, async ({ history }) => {
      const { items, invalid } = await history.runs(last);
      if (args.values.json === true) {
        io.stdout.write(`${JSON.stringify({ runs: items, invalid }, null, 2)}\n`);
      } else if (items.length === 0) {
        io.stdout.write("No run recorded yet.\n");
      } else {
        const paint = palette(io.stdout, io.env);
        const count = (counts: Readonly<Record<string, number>>, key: string) =>
          String(counts[key] ?? 0);
        const lines = renderTable(
          [
            { heading: "STARTED (UTC)" },
            { heading: "TRIGGER" },
            { heading: "RESULT" },
            { heading: "DUE" },
            { heading: "RENEWED" },
            { heading: "FAILED" },
            { heading: "STUCK" },
            { heading: "NOT TRIED" },
          ],
          items.map((r) => [
            minute(r.startedAt.toISOString()),
            r.trigger,
            r.failed
              ? { text: "failed", paint: paint.red }
              : { text: r.dryRun ? "ok (dry run)" : "ok", paint: paint.green },
            count(r.counts, "due"),
            count(r.counts, "renewal-scheduled"),
            count(r.counts, "failed"),
            count(r.counts, "stuck"),
            count(r.counts, "not-attempted"),
          ]),
          { header: paint.bold, width: io.stdout.columns },
        );
        // Why each failed run failed, in full under the table.
        for (const r of items.filter((run) => run.failed && run.problems.length > 0)) {
          lines.push("", `${minute(r.startedAt.toISOString())} (${r.trigger}, run ${r.runId}):`);
          for (const p of r.problems)
            lines.push(...wrapToWidth(oneLine(p), io.stdout.columns, "  "));
        }
        io.stdout.write(`${lines.join("\n")}\n`);
      }
      for (const problem of invalid) {
        io.stderr.write(
          `${wrapToWidth(oneLine(`certsched: ${problem}`), io.stderr.columns, "").join("\n")}\n`,
        );
      }
      return EXIT.ok;
    });
  },
};
