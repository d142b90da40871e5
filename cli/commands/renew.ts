import { randomUUID } from "node:crypto";
import type { AccountPorts } from "../../shared/app/services.js";
import type { RequestContext } from "../../shared/core/ports/service.js";
import { blockedWord } from "../../shared/core/preflight/blocking.js";
import { OutcomeUnknownError, UsageError } from "../../shared/lib/errors.js";
import type { Logger } from "../../shared/lib/log.js";
import { type RenewedByName, renewByName } from "../../shared/usecases/renewByName.js";
import { describe } from "../../shared/usecases/sweep/renewOne.js";
import { declaredAccount } from "../accountPorts.js";
import { cliLogger } from "../cliLogger.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import type { Io } from "../io.js";
import { palette } from "../output/color.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { withRecordingPorts } from "../recordingPorts.js";
import type { ParsedArgs } from "../usage.js";
import { requireApiKey } from "./create.js";

const HELP = `Usage: certsched renew <certificateName>... [--force] [--account NAME]
                       [--json]
       certsched renew --all-due [--force] [--account NAME] [--json]

Schedules the renewal of certificates by name (v3 renew), whether or not they
are due, one after the other. The renewal completes within an hour; "certsched
due" shows when it has.

Each renewal is recorded as the function app records its own: in the renewal
ledger (so the next sweep does not order it again) and in the history, by
"cli". The ledger and history are the app's (CERTSCHED_LEDGER_TABLE_URI, else
AzureWebJobsStorage); without either, nothing is recorded and the next sweep
may ask again.

Options:
  --all-due    Renew every certificate the due list names (certsched due).
  --force      Renew even a certificate its last preflight blocks (certsched
               preflight: caa-forbids, dns-zone-missing, hostname-not-bound or
               app-missing, checked within the last day), or one its
               certificate policy disables.
  --account NAME  The account that holds them (certsched accounts); required
               when more than one account is declared.
  --json       Print one JSON document: for one name { "status",
               "certificateName", "message" } (plus "note"); for several
               { "results": [ those, or { "certificateName", "status":
               "failed" or "unknown", "error", "message" } ], "failed": N }.
  -h, --help   Show this help.

Without an answer within CERTSCHED_SCHEDULE_TIMEOUT (default 120s), Get
Certificate is asked: a later expiry means the renewal is done; otherwise the
outcome is "unknown": check with "certsched get <name>" in a few minutes.

A certificate whose last preflight (within the last day) failed for a reason
only a person can fix is not renewed: "blocked (preflight: <reason>)" and what
to do are printed, nothing is sent, and the exit code is 1. Fix the cause and
run "certsched preflight" again, or renew it anyway with --force.

Renewal windows and freezes (CERTSCHED_RENEWAL_WINDOWS, _FREEZES) do not hold
a renewal asked for by name: they keep the timer's sweeps to the hours chosen,
and a person asking is such a choice. A certificate its policy
disables (CERTSCHED_CERTIFICATE_POLICY "disabled") is not renewed: the policy
is named, nothing is sent, and the exit code is 1; --force renews it anyway.

Exit codes: 0 every renewal scheduled (or already in progress); 1 the service
refused or failed one (an unknown name, say), its outcome is unknown, its
preflight blocked it or its policy disables it; 2 usage or configuration error.
`;

type Outcome =
  | (Omit<RenewedByName, "target" | "recorded"> & { readonly certificateName: string })
  | {
      readonly certificateName: string;
      /** "unknown": no answer in time, and Get Certificate could not show it done. */
      readonly status: "failed" | "unknown";
      readonly error?: string;
      readonly message: string;
    };

export const renewCommand: Command = {
  name: "renew",
  help: HELP,
  options: { ...JSON_OPTION, "all-due": { type: "boolean" }, force: { type: "boolean" } },
  maxPositionals: 1_000,
  run: async (args, io) => {
    const { allDue, given } = namesGiven(args);
    const needs = allDue
      ? (["subscription", "subscriptionId", "apiKey"] as const)
      : (["subscription", "apiKey"] as const);
    // A person renewing: every request, the --all-due list included, is a renewal's.
    const context: RequestContext = { purpose: "renewal", runId: randomUUID() };
    return withRecordingPorts(io, needs, { args, command: "renew" }, async (runtime) => {
      requireApiKey(runtime);
      const log = cliLogger(io, { verbose: false });
      const names = allDue ? await dueNames(runtime, context) : [...new Set(given)];
      const json = args.values.json === true;
      const renew = (name: string): Promise<Outcome> =>
        renewNamed(runtime, name, log, args.values.force === true);
      if (names.length === 1 && !allDue) {
        // One name: its failure is reported as every command's (exit 1, cause, where to look).
        return renewSingle(io, runtime, json, names[0] as string, renew);
      }
      return renewEach(io, runtime, json, names, renew);
    });
  },
};

/** --all-due or the names given (blank ones refused): a UsageError for neither or both. */
function namesGiven(args: ParsedArgs): { allDue: boolean; given: string[] } {
  const allDue = args.values["all-due"] === true;
  const given = args.positionals.filter((n) => n.trim() !== "");
  if (allDue && args.positionals.length > 0) {
    throw new UsageError("give certificate names or --all-due, not both", "renew");
  }
  if (!allDue && (given.length === 0 || given.length !== args.positionals.length)) {
    throw new UsageError("the certificate name is required", "renew");
  }
  return { allDue, given };
}

/** The names the due list gives (certsched due), each once. */
async function dueNames(runtime: AccountPorts, context: RequestContext): Promise<string[]> {
  return [
    ...new Set(
      (await runtime.client.listDue({ context })).certificates.map((c) => c.certificateName),
    ),
  ];
}

/** Renews one certificate by name, as the CLI asks (trigger and requester "cli"). */
async function renewNamed(
  runtime: AccountPorts,
  name: string,
  log: Logger,
  force: boolean,
): Promise<Outcome> {
  const requester = { trigger: "cli", by: "cli" } as const;
  const r = await renewByName(runtime, name, requester, log, { force });
  const { status, message, note, blockedBy, forcedPast, policy } = r;
  return {
    certificateName: name,
    status,
    message,
    ...(note ? { note } : {}),
    ...(blockedBy ? { blockedBy } : {}),
    ...(forcedPast ? { forcedPast } : {}),
    ...(policy ? { policy } : {}),
  };
}

/**
 * One name: writes its outcome and returns the exit code. A failure other than an unknown
 * outcome throws, to be reported as every command's.
 */
async function renewSingle(
  io: Io,
  runtime: AccountPorts,
  json: boolean,
  name: string,
  renew: (name: string) => Promise<Outcome>,
): Promise<number> {
  let result: Outcome;
  try {
    result = await renew(name);
  } catch (error) {
    // Any other failure is reported as every command's (exit 1, cause, where to look).
    if (!(error instanceof OutcomeUnknownError)) throw error;
    result = { certificateName: name, status: "unknown", message: error.message };
  }
  write(io, json, { ...declaredAccount(runtime), ...result });
  return refused(result) ? EXIT.failed : EXIT.ok;
}

/**
 * Several names (or --all-due): renews each in turn, one's failure written as its outcome, and
 * returns the exit code.
 */
async function renewEach(
  io: Io,
  runtime: AccountPorts,
  json: boolean,
  names: readonly string[],
  renew: (name: string) => Promise<Outcome>,
): Promise<number> {
  const results: Outcome[] = [];
  for (const name of names) {
    try {
      results.push(await renew(name));
    } catch (error) {
      const { detail, error: code } = describe(error);
      results.push({
        certificateName: name,
        status: error instanceof OutcomeUnknownError ? "unknown" : "failed",
        ...(code ? { error: code } : {}),
        message: detail,
      });
    }
    if (!json) write(io, false, results.at(-1) as Outcome);
  }
  const failed = results.filter((r) => r.status === "failed" || refused(r)).length;
  if (json) {
    const document = { ...declaredAccount(runtime), results, failed };
    io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  } else if (names.length === 0) io.stdout.write("Nothing is due for renewal.\n");
  return failed > 0 ? EXIT.failed : EXIT.ok;
}

/** Not renewed, or not known to be: blocked, disabled, or its outcome unknown (exit 1). */
function refused(r: Outcome): boolean {
  return r.status === "unknown" || r.status === "blocked" || r.status === "disabled";
}

function write(io: Parameters<Command["run"]>[1], json: boolean, r: Outcome): void {
  if (json) {
    io.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return;
  }
  const paint = palette(io.stdout, io.env);
  const name = oneLine(r.certificateName);
  const line =
    r.status === "scheduled"
      ? `Renewal of ${name} scheduled: ${oneLine(r.message.trim())}`
      : r.status === "in-progress"
        ? `Renewal of ${name} already in progress: ${oneLine(r.message)}`
        : r.status === "unknown"
          ? paint.yellow(`Renewal of ${name} outcome unknown: ${oneLine(r.message)}`)
          : r.status === "blocked" || r.status === "disabled"
            ? paint.red(`Renewal of ${name} not sent, ${oneLine(r.message)}`)
            : paint.red(`Renewal of ${name} failed: ${oneLine(r.message)}`);
  io.stdout.write(`${line}\n`);
  if (r.status === "blocked") {
    const hint = `certsched: fix it and run "certsched preflight" again, or renew anyway: certsched renew ${r.certificateName} --force`;
    io.stderr.write(`${wrapToWidth(oneLine(hint), io.stderr.columns, "").join("\n")}\n`);
  }
  if (r.status === "disabled") {
    const hint = `certsched: ${r.certificateName} is disabled by ${"policy" in r ? r.policy : "its certificate policy"}; to renew it all the same: certsched renew ${r.certificateName} --force`;
    io.stderr.write(`${wrapToWidth(oneLine(hint), io.stderr.columns, "").join("\n")}\n`);
  }
  if (r.status === "scheduled" && "policy" in r && r.policy) {
    const forced = `certsched: ${r.certificateName}: renewed with --force past its disabled certificate policy (${r.policy})`;
    io.stderr.write(`${wrapToWidth(oneLine(forced), io.stderr.columns, "").join("\n")}\n`);
  }
  if ("forcedPast" in r && r.forcedPast) {
    const forced = `certsched: ${r.certificateName}: renewed with --force past ${blockedWord(r.forcedPast)}`;
    io.stderr.write(`${wrapToWidth(oneLine(forced), io.stderr.columns, "").join("\n")}\n`);
  }
  if ("note" in r && r.note) {
    io.stderr.write(
      `${wrapToWidth(oneLine(`certsched: ${r.certificateName}: ${r.note}`), io.stderr.columns, "").join("\n")}\n`,
    );
  }
}
