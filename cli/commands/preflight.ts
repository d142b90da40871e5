import type { Seams } from "../../shared/app/seams.js";
import type { AccountPorts } from "../../shared/app/services.js";
import type { Inventory } from "../../shared/core/ports/inventory.js";
import type { Notifier } from "../../shared/core/ports/notifier.js";
import type { DueList } from "../../shared/core/ports/service.js";
import { PREFLIGHT_ADVICE } from "../../shared/core/preflight/advice.js";
import type { PreflightChange } from "../../shared/core/preflight/changes.js";
import {
  type CheckDocument,
  checkDocument,
  countByStatus,
  PREFLIGHT_STATUSES,
  type PreflightCheck,
  type PreflightResult,
  type PreflightStatus,
} from "../../shared/core/preflight/preflight.js";
import { fromInventory } from "../../shared/core/preflight/subject.js";
import { UsageError } from "../../shared/lib/errors.js";
import type { Logger } from "../../shared/lib/log.js";
import {
  type PreflightReport,
  type PreflightRuntime,
  preflightWith,
} from "../../shared/usecases/preflight.js";
import type { PreflightCheckFunctions } from "../../shared/usecases/preflightChecks/checkTypes.js";
import { type CliServices, withServices } from "../accountPorts.js";
import { type AccountOutcome, accountsEntries } from "../accounts.js";
import { cliLogger } from "../cliLogger.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../exit.js";
import { reportAccountFailure } from "../failure.js";
import type { Io } from "../io.js";
import { type Paint, type Palette, palette } from "../output/color.js";
import { renderTable } from "../output/table.js";
import { append, oneLine, wrapToWidth } from "../output/text.js";

const HELP = `Usage: certsched preflight [--json] [--account NAME] [--certificate NAME ...]

Checks, days ahead, what would make each certificate's renewal fail: a CAA
record that forbids the certificate authority (caa), the DNS zone and its
delegation (dns-zone, dns-delegation), the App Service app and its host name
binding (app-binding), the HTTP challenge path (http-challenge), and whether
Azure accepts certsched's credentials for all that (access). Each certificate
is ready, will-fail (a check failed: the table says why and what to do) or
unknown (a check could not decide: a timeout, a 5xx). Renews nothing and sends
no request to the service but, without storage, the due list.

Checks every certificate in certsched's inventory (with storage), or, without
storage, those on the service's current due list; the results are kept with
each certificate (the sweep and "certsched status" read them). Every
account's (an ACCOUNT column when there are several), or --account NAME's.

Options:
  --certificate NAME  Check this certificate only; repeat for more. A name that
                      no account holds is an error (exit 2), nothing checked.
  --account NAME      Check that account's certificates only.
  --json              Print one JSON document: { "results": [ { "account",
                      "certificateName", "rootDomain", "status", "checks": [
                      { "check", "status", "reason", "detail" } ] } ],
                      "counts": { "ready", "will-fail", "unknown" } }; "reason"
                      is null unless the check failed (with several accounts,
                      also "accounts": [ { "name", "failed", "problems" } ]).
  -h, --help          Show this help.

Settings: CERTSCHED_ARM_URL (https://management.azure.com),
CERTSCHED_DNS_SERVERS (host[:port], comma-separated; default: the system's
resolvers), CERTSCHED_CA_IDENTIFIERS (letsencrypt.org),
CERTSCHED_PREFLIGHT_TIMEOUT (5s per DNS query, HTTP request or ARM call),
CERTSCHED_VERIFY_CONNECT_TO.

Exit codes: 0 every certificate ready or unknown (also when there is nothing to
check); 1 any will-fail, an account that could not be checked, or unreadable
inventory rows; 2 usage or configuration error (an unknown --certificate, a bad
CERTSCHED_ARM_URL or CERTSCHED_DNS_SERVERS).
`;

/** What tests put in place of the real probes and checks; the built CLI passes none. */
export interface PreflightCommandPorts {
  readonly seams?: Seams;
  readonly checks?: PreflightCheckFunctions;
}

/** A result of the --json document (the contract's keys, in its order; no `at`). */
interface ResultDocument {
  readonly account: string;
  readonly certificateName: string;
  readonly rootDomain: string | null;
  readonly status: PreflightStatus;
  readonly checks: readonly CheckDocument[];
}

export function resultDocument(result: PreflightResult): ResultDocument {
  return {
    account: result.account,
    certificateName: result.certificateName,
    rootDomain: result.rootDomain,
    status: result.status,
    checks: result.checks.map(checkDocument),
  };
}

/** parseArgs gives a repeatable flag as an array; ParsedArgs' type does not say so. */
function namesOf(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string")
    : [String(value)];
  const blank = list.find((n) => n.trim() === "");
  if (blank !== undefined) throw new UsageError("--certificate needs a name", "preflight");
  return [...new Set(list)];
}

function statusPaint(status: PreflightStatus | PreflightCheck["status"], paint: Palette): Paint {
  if (status === "ready" || status === "pass") return paint.green;
  if (status === "will-fail" || status === "fail") return paint.red;
  return paint.yellow;
}

/**
 * The table (an ACCOUNT column over several accounts); under each certificate that is not
 * ready, each failed or unknown check with its detail and, for a failure, what to do; then the
 * counts.
 */
export function renderPreflight(
  results: readonly PreflightResult[],
  paint: Palette,
  width: number | undefined,
  many = false,
): string[] {
  const table = renderTable(
    [
      ...(many ? [{ heading: "ACCOUNT" }] : []),
      { heading: "CERTIFICATE", shrink: 1 },
      { heading: "DOMAIN", shrink: 2 },
      { heading: "STATUS" },
    ],
    results.map((r) => [
      ...(many ? [r.account] : []),
      r.certificateName,
      r.rootDomain ?? "-",
      { text: r.status, paint: statusPaint(r.status, paint) },
    ]),
    { header: paint.bold, width },
  );
  const lines = table.slice(0, 1);
  results.forEach((r, i) => {
    lines.push(table[i + 1] ?? "");
    for (const c of r.checks) {
      if (c.status === "pass") continue;
      const word = c.status === "fail" && c.reason ? `fail (${c.reason})` : c.status;
      const head = `${c.check}: ${statusPaint(c.status, paint)(word)} — ${oneLine(c.detail)}`;
      append(lines, wrapToWidth(head, width, "  ", "    "));
      if (c.status === "fail" && c.reason) {
        append(
          lines,
          wrapToWidth(`what to do: ${PREFLIGHT_ADVICE[c.reason]}`, width, "    ", "      "),
        );
      }
    }
  });
  const counts = countByStatus(results);
  const parts = PREFLIGHT_STATUSES.map((s) => `${counts[s]} ${s}`);
  lines.push("", ...wrapToWidth(`${results.length} checked: ${parts.join(", ")}.`, width));
  return lines;
}

/**
 * The inventory and the due list of one account, each read at most once: the names a
 * --certificate must match are looked up before any check runs, from what preflight then checks.
 */
function readOnce(runtime: AccountPorts): {
  runtime: PreflightRuntime;
  names(): Promise<{ names: Set<string>; invalid: number }>;
} {
  const base = runtime.inventory;
  let listed: ReturnType<Inventory["list"]> | undefined;
  let due: Promise<DueList> | undefined;
  const inventory: Inventory = {
    kind: base.kind,
    upsert: (updates) => base.upsert(updates),
    recordVerification: (name, v) => base.recordVerification(name, v),
    recordPreflight: (name, p) => base.recordPreflight(name, p),
    list: () => {
      listed ??= base.list();
      return listed;
    },
    get: (name) => base.get(name),
  };
  const listDue = () => {
    due ??= runtime.client.listDue();
    return due;
  };
  const once: PreflightRuntime = {
    settings: runtime.settings,
    inventory,
    client: { listDue },
    preflightProbes: () => runtime.preflightProbes(),
    now: runtime.now,
  };
  return {
    runtime: once,
    names: async () => {
      if (inventory.kind === "none") {
        const list = await listDue();
        return { names: new Set(list.certificates.map((c) => c.certificateName)), invalid: 0 };
      }
      const read = await inventory.list();
      const names = read.items.filter((r) => fromInventory(r) !== undefined);
      return {
        names: new Set(names.map((r) => r.certificateName)),
        invalid: read.invalid.length,
      };
    },
  };
}

/**
 * Posts what changed (into will-fail, back to ready) to the webhook, as the timer does. Never
 * fails the command: the notifier logs a refusing webhook and says so.
 */
async function postChanges(
  notifier: Pick<Notifier, "notifyPreflight">,
  changes: readonly PreflightChange[],
  log: Logger,
): Promise<void> {
  if (changes.length > 0) await notifier.notifyPreflight(changes, log);
}

const quotedList = (names: readonly string[]) => names.map((n) => `'${oneLine(n)}'`).join(", ");

/** Names that none of the accounts read holds: an operator's typo must not read "all ready". */
async function checkNames(
  cli: CliServices,
  readers: ReadonlyMap<string, ReturnType<typeof readOnce>>,
  names: readonly string[],
  io: Io,
): Promise<void> {
  const read = await cli.each(async (_runtime, account) => {
    const reader = readers.get(account);
    if (!reader) throw new Error(`certsched: no reader for account ${account}`);
    return reader.names();
  });
  const known = new Set<string>();
  let unsure = false;
  for (const o of read) {
    if (!o.ok || o.value.invalid > 0) unsure = true;
    if (o.ok) for (const n of o.value.names) known.add(n);
  }
  const missing = names.filter((n) => !known.has(n));
  if (missing.length === 0) return;
  const where =
    readers.size > 1
      ? "in any account's inventory (or, without storage, on its due list)"
      : "in the inventory (or, without storage, on the due list)";
  const text = `--certificate ${quotedList(missing)}: not found ${where}`;
  // An account that could not be read, or rows that could not be, may hold the name: said,
  // and the run goes on (it fails anyway, for that reason).
  if (unsure) {
    const note = `certsched: ${text}; some certificates could not be read, see below.`;
    io.stderr.write(`${wrapToWidth(oneLine(note), io.stderr.columns).join("\n")}\n`);
    return;
  }
  throw new UsageError(`${text}; nothing was checked`, "preflight");
}

/** One account's report, its changes posted. */
async function preflightAccount(
  runtime: AccountPorts,
  reader: ReturnType<typeof readOnce>,
  io: Io,
  names: readonly string[] | undefined,
  checks: PreflightCheckFunctions | undefined,
): Promise<PreflightReport> {
  const log = cliLogger(io, { verbose: false });
  const report = await preflightWith(reader.runtime, log, { scope: "all", names }, checks);
  await postChanges(runtime.notifier, report.changes, log);
  return report;
}

/** Notes on stderr: where the certificates came from, rows that could not be read. */
function notesOf(outcomes: readonly AccountOutcome<PreflightReport>[], many: boolean, io: Io) {
  const write = (text: string) =>
    io.stderr.write(`${wrapToWidth(oneLine(text), io.stderr.columns).join("\n")}\n`);
  let invalid = 0;
  for (const o of outcomes) {
    if (!o.ok) continue;
    const where = many ? `account ${o.account}: ` : "";
    if (o.value.source === "due-list") {
      write(
        `certsched: ${where}no storage configured: checked the certificates on the service's due list only (with AzureWebJobsStorage, every certificate certsched knows).`,
      );
    }
    for (const line of o.value.invalid) {
      invalid += 1;
      write(`certsched: ${where}an inventory row could not be read and was not checked: ${line}`);
    }
  }
  return invalid;
}

async function runPreflightCommand(
  args: Parameters<Command["run"]>[0],
  io: Io,
  deps: PreflightCommandPorts,
): Promise<number> {
  const names = namesOf((args.values as Readonly<Record<string, unknown>>).certificate);
  const choice = { args, command: "preflight", scope: "each" } as const;
  return withServices(io, ["subscriptionId"], deps.seams ?? {}, choice, async (cli) => {
    // Parsed on first use elsewhere; here before anything is read, so a bad
    // CERTSCHED_ARM_URL or CERTSCHED_DNS_SERVERS is a configuration error (exit 2), not an
    // account's failure.
    for (const account of cli.accounts) cli.services.forAccount(account).settings.preflight();
    const readers = new Map(
      cli.accounts.map((account) => [account, readOnce(cli.services.forAccount(account))]),
    );
    if (names) await checkNames(cli, readers, names, io);
    const outcomes = await cli.each((runtime, account) => {
      const reader = readers.get(account);
      if (!reader) throw new Error(`certsched: no reader for account ${account}`);
      return preflightAccount(runtime, reader, io, names, deps.checks);
    });
    // One account: its failure is reported as every command's (exit 1, cause, where to look).
    if (!cli.many && outcomes[0] && !outcomes[0].ok) throw outcomes[0].error;
    const failures = outcomes.flatMap((o) =>
      o.ok
        ? []
        : [{ account: o.account, ...reportAccountFailure(o.error, io, o.account, "preflight") }],
    );
    const invalid = notesOf(outcomes, cli.many, io);
    const results = outcomes.flatMap((o) => (o.ok ? o.value.results : []));
    if (args.values.json === true) {
      const document = {
        results: results.map(resultDocument),
        counts: countByStatus(results),
        ...(cli.many ? { accounts: accountsEntries(outcomes, failures) } : {}),
      };
      io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    } else if (results.length === 0) {
      const sources = new Set(outcomes.flatMap((o) => (o.ok ? [o.value.source] : [])));
      const what = sources.has("inventory")
        ? "the inventory holds no certificate of the service yet (a sweep or certsched verify fills it)"
        : "no certificate is on the due list";
      io.stdout.write(`Nothing to check: ${what}.\n`);
    } else {
      io.stdout.write(
        `${renderPreflight(results, palette(io.stdout, io.env), io.stdout.columns, cli.many).join("\n")}\n`,
      );
    }
    const willFail = results.some((r) => r.status === "will-fail");
    return willFail || failures.length > 0 || invalid > 0 ? EXIT.failed : EXIT.ok;
  });
}

/** The command, with the probes and checks `deps` give (tests), else the real ones. */
export function preflightCommandWith(deps: PreflightCommandPorts): Command {
  return {
    name: "preflight",
    help: HELP,
    options: { ...JSON_OPTION, certificate: { type: "string", multiple: true } },
    maxPositionals: 0,
    run: (args, io) => runPreflightCommand(args, io, deps),
  };
}

export const preflightCommand: Command = preflightCommandWith({});
