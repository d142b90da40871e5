import type { RunRecord } from "../../shared/core/history/events.js";
import { mapWithConcurrency } from "../../shared/lib/pool.js";
import { withAccount } from "../accounts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import type { Io } from "../io.js";
import { palette } from "../output/color.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { type StorageAccess, withStorage } from "../storage.js";
import { integerFlag } from "../usage.js";
import { minute } from "./status.js";

const HELP = `Usage: certsched runs [--last N] [--account NAME] [--json]

Shows the latest sweeps, newest first: what started each (timer, http, cli,
queue), when, how many certificates were due, renewed, failed, stuck or not
attempted, and why a failed run failed. Changes nothing.

Reads the function app's storage: CERTSCHED_LEDGER_TABLE_URI (with your own
Azure identity, DefaultAzureCredential: az login) or AzureWebJobsStorage.

Options:
  --last N     How many runs, 1 to 1000 (default 10).
  --account NAME  That account's runs only; without it, every account's
               (an ACCOUNT column when there are several).
  --json       Print one JSON document: { "runs": [ { "runId", "trigger",
               "startedAt", "finishedAt", "dryRun", "forced" (when forced
               past the preflight), "failed", "ledger", "counts",
               "problems" } ] (with "account" when accounts are
               declared), "invalid": [ rows not read ] }.
  -h, --help   Show this help.

Exit codes: 0 shown (also when a run failed: this command only reads); 1 the
storage could not be read; 2 usage or configuration error.
`;

/** One run read, with the account whose history it is in. */
interface TaggedRun {
  readonly account: string;
  readonly r: RunRecord;
}

/** The runs of every account chosen, newest first, and the rows that could not be read. */
interface RunsRead {
  readonly tagged: TaggedRun[];
  readonly invalid: string[];
}

/** The last N runs of each account chosen, merged newest first, the last N in all. */
async function readRuns(
  { accounts, many, concurrency }: StorageAccess,
  last: number,
): Promise<RunsRead> {
  const read = await mapWithConcurrency(accounts, concurrency, async (a) => {
    const { items, invalid } = await a.history.runs(last);
    const who = many ? `account ${a.account}: ` : "";
    return {
      items: items.map((r) => ({ account: a.account, r })),
      invalid: invalid.map((problem) => `${who}${problem}`),
    };
  });
  // Newest first over every account, the last N in all.
  const tagged = read
    .flatMap((x) => x.items)
    .sort((x, y) => y.r.startedAt.getTime() - x.r.startedAt.getTime())
    .slice(0, last);
  const invalid = read.flatMap((x) => x.invalid);
  return { tagged, invalid };
}

/** The table of runs, one row each: the result painted, then the counts. */
function runTable(io: Io, tagged: readonly TaggedRun[], many: boolean): string[] {
  const paint = palette(io.stdout, io.env);
  const count = (counts: Readonly<Record<string, number>>, key: string) => String(counts[key] ?? 0);
  return renderTable(
    [
      ...(many ? [{ heading: "ACCOUNT" }] : []),
      { heading: "STARTED (UTC)" },
      { heading: "TRIGGER" },
      { heading: "RESULT" },
      { heading: "DUE" },
      { heading: "RENEWED" },
      { heading: "FAILED" },
      { heading: "STUCK" },
      { heading: "BLOCKED" },
      { heading: "NOT TRIED" },
    ],
    tagged.map(({ account, r }) => [
      ...(many ? [account] : []),
      minute(r.startedAt.toISOString()),
      r.trigger,
      r.failed
        ? { text: "failed", paint: paint.red }
        : {
            text: `ok${r.dryRun ? " (dry run)" : ""}${r.forced ? " (forced)" : ""}`,
            paint: paint.green,
          },
      count(r.counts, "due"),
      count(r.counts, "renewal-scheduled"),
      count(r.counts, "failed"),
      count(r.counts, "stuck"),
      count(r.counts, "blocked"),
      count(r.counts, "not-attempted"),
    ]),
    { header: paint.bold, width: io.stdout.columns },
  );
}

/** Why each failed run failed, in full under the table. */
function failureLines(
  tagged: readonly TaggedRun[],
  many: boolean,
  columns: number | undefined,
): string[] {
  const lines: string[] = [];
  for (const { account, r } of tagged.filter(
    ({ r: run }) => run.failed && run.problems.length > 0,
  )) {
    const who = many ? `${account}, ` : "";
    lines.push("", `${minute(r.startedAt.toISOString())} (${who}${r.trigger}, run ${r.runId}):`);
    for (const p of r.problems) lines.push(...wrapToWidth(oneLine(p), columns, "  "));
  }
  return lines;
}

/** The rows that could not be read, one warning each. */
function writeInvalid(io: Io, invalid: readonly string[]): void {
  for (const problem of invalid) {
    io.stderr.write(
      `${wrapToWidth(oneLine(`certsched: ${problem}`), io.stderr.columns, "").join("\n")}\n`,
    );
  }
}

export const runsCommand: Command = {
  name: "runs",
  help: HELP,
  options: { ...JSON_OPTION, last: { type: "string" } },
  maxPositionals: 0,
  run: async (args, io) => {
    const last = integerFlag("runs", "--last", args.values.last, 1, 1000) ?? 10;
    const choice = { args, command: "runs", scope: "each" } as const;
    return withStorage(io, choice, async (access) => {
      const { tagged, invalid } = await readRuns(access, last);
      if (args.values.json === true) {
        const items = tagged.map((t) => t.r);
        const runs = access.declared ? tagged.map((t) => withAccount(t.account, t.r)) : items;
        io.stdout.write(`${JSON.stringify({ runs, invalid }, null, 2)}\n`);
      } else if (tagged.length === 0) {
        io.stdout.write("No run recorded yet.\n");
      } else {
        const lines = runTable(io, tagged, access.many);
        lines.push(...failureLines(tagged, access.many, io.stdout.columns));
        io.stdout.write(`${lines.join("\n")}\n`);
      }
      writeInvalid(io, invalid);
      return EXIT.ok;
    });
  },
};
