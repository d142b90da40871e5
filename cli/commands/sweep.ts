import { createRuntime, type Runtime } from "../../shared/app/services.js";
import type { Ledger } from "../../shared/core/ports/ledger.js";
import { noLedger } from "../../shared/core/ports/ledger.js";
import type { SweepSummary } from "../../shared/core/renewal/summary.js";
import type { Settings } from "../../shared/core/settings.js";
import { sweepWith } from "../../shared/usecases/sweep.js";
import { cliLogger } from "../cliLogger.js";
import { type Command, JSON_OPTION } from "../command.js";
import { cliSettings } from "../config.js";
import { EXIT } from "../failure.js";
import type { Io } from "../io.js";
import { palette } from "../output/color.js";
import { progressLine } from "../output/progress.js";
import { renderSweep } from "../output/sweepReport.js";
import { wrapToWidth } from "../output/text.js";
import { sweepSandbox } from "../sandboxSweep.js";
import { integerFlag, type ParsedArgs } from "../usage.js";

const HELP = `Usage: certsched sweep [--dry-run] [--json] [--concurrency N] [--sandbox]
                       [--no-ledger] [--verbose]

Runs the timer's job once: lists the certificates due for renewal, decides for
each one, schedules the renewals and prints what happened: a table that fits
the terminal, then the cause of every certificate that did not renew, in full.

Options:
  --dry-run        List and decide, renew nothing (or CERTSCHED_DRY_RUN=true).
  --concurrency N  Renewals in flight at once, 1 to 64 (default
                   CERTSCHED_RENEWAL_CONCURRENCY, 8).
  --json           Print one JSON document: { dryRun, results, counts, ... }.
  --sandbox        Sweep the built-in simulators, two accounts ("contoso" and
                   "fabrikam") declared in CERTSCHED_ACCOUNTS, seeded with
                   sample certificates, instead of the configured service
                   (what "npm start" does when no service is configured).
  --no-ledger      Sweep without the renewal ledger on purpose: nothing guards
                   against renewing what an earlier sweep just renewed.
  --verbose        Also print the log lines the function app writes for a sweep.
  -h, --help       Show this help.

Renewal ledger: the sweep uses the function app's ledger (Azure Table storage)
named by CERTSCHED_LEDGER_TABLE_URI or AzureWebJobsStorage, the storage
emulator (Azurite on 127.0.0.1:10002) for UseDevelopmentStorage=true. When that
ledger cannot be reached the sweep renews nothing and exits 1: start Azurite,
or sweep without a ledger on purpose with --no-ledger (or by unsetting
AzureWebJobsStorage). No setting at all sweeps without one, and says so.

Exit codes: 0 the sweep succeeded (also when nothing is due); 1 the list failed,
a renewal failed, a certificate is stuck or was not attempted, or the ledger
was unreachable; 2 usage or configuration error. In
the sandbox the staged refusal does not count: exit 0 unless something else
failed.
`;

/**
 * The ledger the function app would use (the runtime's choice: CERTSCHED_LEDGER_TABLE_URI, then
 * AzureWebJobsStorage, the emulator included), unless --no-ledger asks to sweep without one.
 */
export function cliLedger(
  settings: Settings,
  options: { noLedger: boolean },
): { ledger?: Ledger; note?: string } {
  if (!options.noLedger) return {};
  const configured = settings.ledgerTableUri ?? settings.storageConnectionString;
  return {
    ledger: noLedger,
    ...(configured
      ? { note: "certsched: --no-ledger: sweeping without the configured renewal ledger" }
      : {}),
  };
}

/** What the CLI adds when a configured ledger was unreachable: how to do without it on purpose. */
export const NO_LEDGER_HINT =
  "certsched: the renewal ledger could not be reached, so nothing was renewed. Start the storage it names (for UseDevelopmentStorage=true: Azurite), or sweep without a ledger on purpose: certsched sweep --no-ledger (or unset AzureWebJobsStorage).";

interface SweepFlags {
  readonly dryRun: boolean | undefined;
  readonly concurrency: number | undefined;
  readonly json: boolean;
  readonly verbose: boolean;
  readonly noLedger: boolean;
}

/** The timer's sweep (sweepWith: telemetry, webhook), plus a progress line on a terminal. */
async function sweepOnce(runtime: Runtime, io: Io, flags: SweepFlags): Promise<SweepSummary> {
  const progress = progressLine(io.stderr);
  const log = cliLogger(io, { verbose: flags.verbose, progress });
  progress.update("certsched: listing the certificates due...");
  try {
    return await sweepWith(runtime, log, {
      trigger: "cli",
      ...(flags.dryRun === undefined ? {} : { dryRun: flags.dryRun }),
      ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
      onResult: (result, done, total) =>
        progress.update(
          `certsched: [${done}/${total}] ${result.certificateName}: ${result.outcome}`,
        ),
    });
  } finally {
    progress.clear();
  }
}

function flagsOf(args: ParsedArgs): SweepFlags {
  return {
    dryRun: args.values["dry-run"] === true ? true : undefined,
    concurrency: integerFlag("sweep", "--concurrency", args.values.concurrency, 1, 64),
    json: args.values.json === true,
    verbose: args.values.verbose === true,
    noLedger: args.values["no-ledger"] === true,
  };
}

async function sweepConfigured(io: Io, flags: SweepFlags): Promise<number> {
  const settings = await cliSettings(io, ["subscriptionId"]);
  const { ledger, note } = cliLedger(settings, flags);
  if (note) {
    const paint = palette(io.stderr, io.env);
    const lines = wrapToWidth(note, io.stderr.columns).map((line) => paint.yellow(line));
    io.stderr.write(`${lines.join("\n")}\n`);
  }
  const runtime = createRuntime(settings, ledger ? { ledger } : {});
  let summary: SweepSummary;
  try {
    summary = await sweepOnce(runtime, io, flags);
  } finally {
    await runtime.close();
  }
  if (flags.json) {
    io.stdout.write(`${JSON.stringify({ service: settings.baseUrl, ...summary }, null, 2)}\n`);
  } else {
    const paint = palette(io.stdout, io.env);
    const lines = renderSweep(summary, paint, io.stdout.columns, settings);
    io.stdout.write(`${lines.join("\n")}\n`);
  }
  if (summary.ledger === "unavailable" && !summary.dryRun) {
    io.stderr.write(`${palette(io.stderr, io.env).yellow(NO_LEDGER_HINT)}\n`);
  }
  return summary.failed ? EXIT.failed : EXIT.ok;
}

export const sweepCommand: Command = {
  name: "sweep",
  help: HELP,
  options: {
    ...JSON_OPTION,
    "dry-run": { type: "boolean" },
    concurrency: { type: "string" },
    sandbox: { type: "boolean" },
    "no-ledger": { type: "boolean" },
    verbose: { type: "boolean" },
  },
  maxPositionals: 0,
  run: (args, io) => {
    const flags = flagsOf(args);
    return args.values.sandbox === true
      ? sweepSandbox(io, flags, (runtime) => sweepOnce(runtime, io, flags))
      : sweepConfigured(io, flags);
  },
};
