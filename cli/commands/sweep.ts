import type { AccountPorts } from "../../shared/app/services.js";
import type { Ledger } from "../../shared/core/ports/ledger.js";
import { noLedger } from "../../shared/core/ports/ledger.js";
import type { SweepSummary } from "../../shared/core/renewal/summary.js";
import { OUTCOMES, unresolvedAnswers } from "../../shared/core/renewal/summary.js";
import type { Settings } from "../../shared/core/settings.js";
import { ensureError } from "../../shared/lib/errors.js";
import type { Logger } from "../../shared/lib/log.js";
import { redact } from "../../shared/lib/redact/redact.js";
import { sweep } from "../../shared/usecases/sweep/sweep.js";
import { type CliServices, withServices } from "../accountPorts.js";
import { withAccount } from "../accounts.js";
import { cliLogger } from "../cliLogger.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import type { Io } from "../io.js";
import { palette } from "../output/color.js";
import { progressLine } from "../output/progress.js";
import { renderSweep } from "../output/sweepReport.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { integerFlag, type ParsedArgs } from "../usage.js";

const HELP = `Usage: certsched sweep [--dry-run] [--json] [--concurrency N] [--sandbox]
                       [--no-ledger] [--verbose] [--force] [--account NAME]

Runs the timer's job once: lists the certificates due for renewal, decides for
each one, schedules the renewals and prints what happened: a table that fits
the terminal, then the cause of every certificate that did not renew, in full.

Options:
  --dry-run        List and decide, renew nothing (or CERTSCHED_DRY_RUN=true).
  --concurrency N  Renewals in flight at once, 1 to 64 (default
                   CERTSCHED_RENEWAL_CONCURRENCY, 8).
  --account NAME   Sweep that account only. Without it every account is swept,
                   CERTSCHED_ACCOUNT_CONCURRENCY (4) at once, each under its
                   own heading, then one line per account.
  --json           Print one JSON document: { dryRun, results, counts, ... }:
                   each result with its "account"; "accounts": [ { "name",
                   "failed", "problems", ... } ] says each account's part.
  --sandbox        Sweep the built-in simulators, two accounts ("contoso" and
                   "fabrikam") declared in CERTSCHED_ACCOUNTS, seeded with
                   sample certificates, instead of the configured service
                   (what "npm start" does when no service is configured).
  --no-ledger      Sweep without the renewal ledger on purpose: nothing guards
                   against renewing what an earlier sweep just renewed.
  --verbose        Also print the log lines the function app writes for a sweep.
  --force          Renew also the certificates their last preflight blocks.
  -h, --help       Show this help.

Renewal ledger: the sweep uses the function app's ledger (Azure Table storage)
named by CERTSCHED_LEDGER_TABLE_URI or AzureWebJobsStorage, the storage
emulator (Azurite on 127.0.0.1:10002) for UseDevelopmentStorage=true. When that
ledger cannot be reached the sweep renews nothing and exits 1: start Azurite,
or sweep without a ledger on purpose with --no-ledger (or by unsetting
AzureWebJobsStorage). No setting at all sweeps without one, and says so.

Blocked: a due certificate whose last preflight (certsched preflight, within
the last day) failed for caa-forbids, dns-zone-missing, hostname-not-bound or
app-missing is not renewed: "blocked (preflight: <reason>)" and what to do are
printed and no request is spent on it. Fix it, or sweep with --force.

Renewal windows: with CERTSCHED_RENEWAL_WINDOWS (or an account's "windows")
declared, a due certificate outside its windows, or in a freeze
(CERTSCHED_RENEWAL_FREEZES), is not sent: it is "waiting (opens <when>)". One
whose expiry (or the CA's ARI window) would come before the next opening plus
CERTSCHED_WINDOW_MARGIN is renewed now, "outside window", with the reason. A
certificate its policy disables (CERTSCHED_CERTIFICATE_POLICY) is "disabled":
never sent. Neither waiting nor disabled fails the sweep.

Answer unknown: a certificate whose last renewal request went out without a
recorded answer (a sweep killed mid-request, or one that timed out) is not asked
again within the hour the service takes to complete it: it is named ("not
asked for", and "unresolved" in --json). Still due an hour after the request,
it is asked again; one left an hour or more without being asked fails the sweep.

Exit codes: 0 the sweep succeeded (also when nothing is due); 1 the list failed,
a renewal failed, a certificate is stuck, blocked or was not attempted, is still
due an hour after an unanswered request and was not asked again, or the ledger
was unreachable, in any account (the other accounts still renew); 2 usage or
configuration error. In the sandbox the staged refusal does not count: exit 0
unless something else failed.
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
  readonly force: boolean;
}

/** The timer's sweep (sweep: telemetry, webhook), plus a progress line on a terminal. */
async function sweepOnce(runtime: AccountPorts, io: Io, flags: SweepFlags): Promise<SweepSummary> {
  const progress = progressLine(io.stderr);
  const log = cliLogger(io, { verbose: flags.verbose, progress });
  progress.update("certsched: listing the certificates due...");
  try {
    return await sweep(runtime, log, {
      trigger: "cli",
      ...(flags.force ? { force: true } : {}),
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
    force: args.values.force === true,
  };
}

/** One account's sweep, or the failure that kept it from producing a summary. */
type AccountSweep =
  | { readonly account: string; readonly service: string; readonly summary: SweepSummary }
  | { readonly account: string; readonly service: string; readonly error: unknown };

/** A logger whose lines name the account: several accounts sweep at once. */
function accountLog(log: Logger, account: string): Logger {
  const named = (m: string) =>
    m.startsWith("certsched: ")
      ? `certsched: account ${account}: ${m.slice("certsched: ".length)}`
      : `account ${account}: ${m}`;
  return {
    info: (m) => log.info(named(m)),
    warn: (m) => log.warn(named(m)),
    error: (m) => log.error(named(m)),
  };
}

/** The sweep of each account, settings.accountConcurrency at once; one's failure is its own. */
async function sweepAccounts(cli: CliServices, io: Io, flags: SweepFlags): Promise<AccountSweep[]> {
  const progress = progressLine(io.stderr);
  const log = cliLogger(io, { verbose: flags.verbose, progress });
  progress.update("certsched: listing the certificates due...");
  try {
    const outcomes = await cli.each((runtime, account) =>
      sweep(runtime, cli.many ? accountLog(log, account) : log, {
        trigger: "cli",
        ...(flags.force ? { force: true } : {}),
        ...(flags.dryRun === undefined ? {} : { dryRun: flags.dryRun }),
        ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
        onResult: (result, done, total) =>
          progress.update(
            `certsched: ${cli.many ? `${account}: ` : ""}[${done}/${total}] ${result.certificateName}: ${result.outcome}`,
          ),
      }),
    );
    return outcomes.map((o) => {
      const service = cli.services.forAccount(o.account).settings.baseUrl;
      return o.ok
        ? { account: o.account, service, summary: o.value }
        : { account: o.account, service, error: o.error };
    });
  } finally {
    progress.clear();
  }
}

/** One account's sweep as a summary: a sweep that threw is a failed one, with why. */
function summaryOf(sweep: AccountSweep, flags: SweepFlags): SweepSummary {
  if ("summary" in sweep) return sweep.summary;
  const message = redact(ensureError(sweep.error).message);
  return {
    dryRun: flags.dryRun ?? false,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    ledger: "none",
    listError: message,
    results: [],
    rejected: [],
    counts: {
      ...Object.fromEntries(OUTCOMES.map((o) => [o, 0])),
      due: 0,
    } as SweepSummary["counts"],
    failed: true,
    problems: [message],
  };
}

/**
 * The --json document of a sweep over one or several accounts: every result, rejected record
 * and problem names its account; counts are summed; "accounts" says each account's part.
 */
export function sweepDocument(
  sweeps: readonly { account: string; service: string; summary: SweepSummary }[],
): Record<string, unknown> {
  const [first] = sweeps;
  const accounts = sweeps.map(({ account, service, summary }) => ({
    name: account,
    service,
    failed: summary.failed,
    problems: summary.problems,
    ledger: summary.ledger,
    counts: summary.counts,
    ...(summary.listError === undefined ? {} : { listError: summary.listError }),
    ...(summary.requests7d === undefined ? {} : { requests7d: summary.requests7d }),
    ...(summary.quota === undefined ? {} : { quota: summary.quota }),
  }));
  if (sweeps.length === 1 && first) {
    const { account, service, summary } = first;
    return {
      service,
      ...summary,
      results: summary.results.map((r) => withAccount(account, r)),
      // Left waiting behind a request whose answer is unknown (a crashed sweep's).
      unresolved: unresolvedAnswers(summary.results),
      rejected: summary.rejected.map((r) => withAccount(account, r)),
      accounts,
    };
  }
  const counts: Record<string, number> = {};
  for (const { summary } of sweeps) {
    for (const [key, n] of Object.entries(summary.counts)) counts[key] = (counts[key] ?? 0) + n;
  }
  const started = sweeps.map((s) => s.summary.startedAt).sort()[0];
  const ledgers = new Set(sweeps.map((s) => s.summary.ledger));
  return {
    dryRun: sweeps.some((s) => s.summary.dryRun),
    ...(started === undefined ? {} : { startedAt: started }),
    durationMs: Math.max(0, ...sweeps.map((s) => s.summary.durationMs)),
    ledger: ledgers.has("unavailable") ? "unavailable" : (first?.summary.ledger ?? "none"),
    results: sweeps.flatMap((s) => s.summary.results.map((r) => withAccount(s.account, r))),
    rejected: sweeps.flatMap((s) => s.summary.rejected.map((r) => withAccount(s.account, r))),
    unresolved: sweeps.flatMap((s) =>
      unresolvedAnswers(s.summary.results).map((u) => withAccount(s.account, u)),
    ),
    counts,
    failed: sweeps.some((s) => s.summary.failed),
    problems: sweeps.flatMap((s) => s.summary.problems.map((p) => `account ${s.account}: ${p}`)),
    accounts,
  };
}

/** The sweep for people over several accounts: each account under its heading, then one line each. */
function renderAccounts(
  sweeps: readonly { account: string; service: string; summary: SweepSummary }[],
  cli: CliServices,
  io: Io,
): string[] {
  const paint = palette(io.stdout, io.env);
  const width = io.stdout.columns;
  const lines: string[] = [];
  for (const { account, service, summary } of sweeps) {
    if (lines.length > 0) lines.push("");
    lines.push(...wrapToWidth(paint.bold(`Account ${account} (${service})`), width));
    lines.push(...renderSweep(summary, paint, width, cli.services.forAccount(account).settings));
  }
  const failed = sweeps.filter((s) => s.summary.failed).length;
  lines.push(
    "",
    paint.bold(
      `${sweeps.length} accounts swept: ${sweeps.length - failed} succeeded, ${failed} failed.`,
    ),
  );
  for (const { account, summary } of sweeps) {
    const due = summary.listError === undefined ? `${summary.counts.due} due` : "list failed";
    const renewed = summary.counts["renewal-scheduled"] ?? 0;
    const held = heldWords(summary.counts);
    const state = summary.failed
      ? paint.red(`failed: ${oneLine(summary.problems[0] ?? "see above")}`)
      : paint.green("ok");
    lines.push(
      ...wrapToWidth(
        `- ${account}: ${due}, ${renewed} renewed${held}; ${state}`,
        width,
        "",
        "    ",
      ),
    );
  }
  return lines;
}

/** ", 2 waiting for their window, 1 disabled" when the calendar held any; else "". */
function heldWords(counts: SweepSummary["counts"]): string {
  const waiting = counts.waiting ?? 0;
  const disabled = counts.disabled ?? 0;
  return `${waiting > 0 ? `, ${waiting} waiting for their window` : ""}${disabled > 0 ? `, ${disabled} disabled` : ""}`;
}

async function sweepConfigured(io: Io, flags: SweepFlags, args: ParsedArgs): Promise<number> {
  const seams = (settings: Settings) => {
    const { ledger, note } = cliLedger(settings, flags);
    if (note) {
      const paint = palette(io.stderr, io.env);
      const lines = wrapToWidth(note, io.stderr.columns).map((line) => paint.yellow(line));
      io.stderr.write(`${lines.join("\n")}\n`);
    }
    return ledger ? { ledger } : {};
  };
  const choice = { args, command: "sweep", scope: "each" } as const;
  return withServices(io, ["subscriptionId"], seams, choice, async (cli) => {
    const sweeps = await sweepAccounts(cli, io, flags);
    // One account: a sweep that threw is reported as every command's failure (exit 1, cause).
    const only = sweeps[0];
    if (!cli.many && only && "error" in only) throw only.error;
    const summaries = sweeps.map((s) => ({
      account: s.account,
      service: s.service,
      summary: summaryOf(s, flags),
    }));
    if (flags.json) {
      io.stdout.write(`${JSON.stringify(sweepDocument(summaries), null, 2)}\n`);
    } else if (!cli.many && summaries[0]) {
      const paint = palette(io.stdout, io.env);
      const lines = renderSweep(
        summaries[0].summary,
        paint,
        io.stdout.columns,
        cli.services.forAccount(summaries[0].account).settings,
      );
      io.stdout.write(`${lines.join("\n")}\n`);
    } else {
      io.stdout.write(`${renderAccounts(summaries, cli, io).join("\n")}\n`);
    }
    const unavailable = summaries.some(
      (s) => s.summary.ledger === "unavailable" && !s.summary.dryRun,
    );
    if (unavailable) io.stderr.write(`${palette(io.stderr, io.env).yellow(NO_LEDGER_HINT)}\n`);
    return summaries.some((s) => s.summary.failed) ? EXIT.failed : EXIT.ok;
  });
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
    force: { type: "boolean" },
  },
  maxPositionals: 0,
  run: async (args, io) => {
    const flags = flagsOf(args);
    if (args.values.sandbox !== true) return sweepConfigured(io, flags, args);
    // The sandbox starts simulators (a CA, a DNS server): loaded only for --sandbox.
    const { sweepSandbox } = await import("../sandboxSweep.js");
    return sweepSandbox(io, flags, (runtime) => sweepOnce(runtime, io, flags));
  },
};
