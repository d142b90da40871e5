import { requestsLast7Days } from "../../shared/adapters/service/requestLog.js";
import { loadVerifySettings } from "../../shared/app/config/verifySettings.js";
import {
  listLedgerRowsOnFirstUse,
  tableInventoryOnFirstUse,
} from "../../shared/app/lazyAdapters.js";
import { type AriView, ariLine } from "../../shared/core/ari/ariView.js";
import type { CertificateRecord } from "../../shared/core/certificate/records.js";
import {
  type CertificateStatus,
  certificateStatus,
  type StatusWord,
} from "../../shared/core/status/certificateStatus.js";
import type { IssuanceStatus } from "../../shared/core/status/issuanceStatus.js";
import {
  PREFLIGHT_FILTERS,
  type PreflightFilter,
  preflightFilterOf,
  preflightWord,
} from "../../shared/core/status/preflightView.js";
import { withServiceRecords } from "../../shared/core/status/serviceOverlay.js";
import { ensureError, UsageError } from "../../shared/lib/errors.js";
import { redact } from "../../shared/lib/redact/redact.js";
import { readIssuanceStatus } from "../../shared/usecases/listStatus.js";
import { type LoadedStatus, loadStatus } from "../../shared/usecases/steps/loadStatus.js";
import { type AccountOutcome, overAccounts, withAccount } from "../accounts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { cliEnv } from "../config.js";
import { type AccountFailure, EXIT, reportAccountFailure } from "../failure.js";
import type { Io } from "../io.js";
import { type Paint, type Palette, palette } from "../output/color.js";
import { daysPaint } from "../output/sweepReport.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { calendarOf } from "../output/window.js";
import { type AccountStorage, type StorageAccess, withStorage } from "../storage.js";
import type { ParsedArgs } from "../usage.js";
import { issuanceLines, issuanceNotes, issuancesJson } from "./statusIssuances.js";

const HELP = `Usage: certsched status [<certificateName>...] [--offline] [--account NAME]
                        [--preflight STATUS[,STATUS]] [--json]

Shows each certificate certsched knows (the inventory and the renewal
ledger) with one status word, the expiry as served (the last verification)
and as the service says, the last request, its outcome and cause, and the
attempts. Without names: every certificate known. Changes nothing. Every
account's (an ACCOUNT column when there are several), or --account NAME's.

Status words, the first that applies: expired, stuck, failed (the last
request failed, or a browser refuses the served certificate:
incomplete-chain, untrusted, mismatch, weak, too-long), not-landed,
not-synced (a domain still serves an older version than its Key Vault
certificate's after CERTSCHED_SYNC_WINDOW), pending
(a renewal in flight, answer-unknown included),
expiring (fewer than CERTSCHED_VERIFY_WARN_DAYS days left), unverifiable,
ok, unknown (nothing known but the name).

PREFLIGHT is the last preflight (certsched preflight, the daily timer):
ready, will-fail (its reasons), unknown (a check could not decide), or -
(never checked). Each will-fail certificate is explained under the table:
every failed check, its detail and what to do, and whether the sweep holds
its renewal (a reason only a person can fix, found within the last day).

A certificate whose CA gave a renewal window (ARI, CERTSCHED_ARI_DIRECTORIES)
has a line under the table: "ARI window 2026-12-01..2026-12-03", with
"(renew now)" once it has started (the verification timer then renews it,
trigger ari) and the CA's explanation URL when it gave one.

With the Certificate Transparency watch on (CERTSCHED_CT_WATCH), an account
with unexpected certificate issuances nobody acknowledged has a red line
under the table: "2 unexpected certificate issuances (not acknowledged):
certsched ct", naming the first three.

With a renewal calendar declared (docs/renewal-windows.md), each certificate
has a line under the table saying when it is renewed: "open until ...",
"waiting: opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)",
"renewed outside its renewal windows: ..." (its expiry or the CA's ARI window
comes first), "disabled (policy ...)". It needs the account's service
settings (the calendar is declared with them).

Reads the function app's storage: CERTSCHED_LEDGER_TABLE_URI (with your own
Azure identity, DefaultAzureCredential: az login) or AzureWebJobsStorage.
When the service is configured, its due list is read once for the expiry as
it says now (one request, counted in the 7-day request count).

Options:
  --offline    Read the storage only: send no request to the service.
  --preflight STATUS[,STATUS]
               Only certificates whose last preflight is one of: ready,
               will-fail, unknown, none (never checked).
  --json       Print one JSON document: { "service" (reachable, unreachable,
               not-configured, not-asked), "requests7d" (requests sent to
               the service in the last 7 days; null: not readable),
               "certificates": [ { "certificateName", "id", "status", "why",
               "critical", "expiry": { "service", "serviceDaysLeft",
               "served", "servedDaysLeft" }, "ledger": null or { "outcome",
               "reason", "attempts", "firstRequestedAt", "lastRequestedAt",
               "detail", "current", "stuck" }, "verification": null or {
               "at", "status", "critical", "source", "domain",
               "servedNotAfter", "daysLeft", "detail" }, "inventory": null
               or { "source", "target", "renewal", "rootDomain",
               "keyVaultName", "keyVaultCertificateName", "firstSeen",
               "lastSeen" }, "label" (the status, with "· will fail
               (reasons)" beside it when the last preflight will fail),
               "preflight": null or { "status", "at", "rootDomain",
               "reasons", "checks": [ { "check", "status", "reason",
               "detail", "advice" } ], "blocks" }, "ari": null or {
               "start", "end", "explanationUrl", "renewNow", "text",
               "problem" }, "window" (with a calendar declared: null or {
               "state", "text", "window", "opensAt", "closesAt", "opensAtLocal",
               "opens", "timeZone", "frozen", "mustRenewBy", "because",
               "policy" }), "account" } ],
               "invalid": [ rows not read ], "issuances": { "unexpected"
               (not acknowledged), "pending": [ each as certsched ct --json
               shows it, with its "account" ] } }.
               With several accounts, "service" and "requests7d" move to
               "accounts": [ { "name", "service", "requests7d", "failed",
               "problems" } ].
  -h, --help   Show this help.

Exit codes: 0 shown; 1 the storage could not be read (any account's: the
others are still shown); 2 usage or configuration error.
`;

/** Words a person must act on: red, their reasons in full under the table. */
const ACT: ReadonlySet<StatusWord> = new Set([
  "expired",
  "stuck",
  "failed",
  "not-landed",
  "not-synced",
]);
/** Words worth a look: yellow. */
const LOOK: ReadonlySet<StatusWord> = new Set(["expiring", "unverifiable", "pending"]);

function note(io: Io, text: string): void {
  io.stderr.write(`${wrapToWidth(oneLine(text), io.stderr.columns, "").join("\n")}\n`);
}

/** "2026-11-23 20:46": minutes are enough to a person, and UTC everywhere. */
export const minute = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "-");

/** "2026-05-06 5d" or "2026-05-06 expired": the date and whole days left, narrow. */
function expiryCell(
  iso: string | null,
  days: number | null,
  paint: Palette,
): ReturnType<typeof cell> {
  if (iso === null || days === null) return "-";
  return cell(`${iso.slice(0, 10)} ${days >= 0 ? `${days}d` : "expired"}`, daysPaint(days, paint));
}

const cell = (text: string, paint?: Paint) => (paint ? { text, paint } : text);

/** The PREFLIGHT cell: red for will-fail, yellow for unknown, green for ready, "-" never run. */
function preflightCell(s: CertificateStatus, paint: Palette): ReturnType<typeof cell> {
  if (s.preflight === null) return "-";
  const tone = { ready: paint.green, "will-fail": paint.red, unknown: paint.yellow };
  return cell(preflightWord(s.preflight), tone[s.preflight.status]);
}

/**
 * The lines under the table for a will-fail preflight: each failed check in full, and what to
 * do. A cut reason is no use to the person who must fix it.
 */
function preflightLines(
  s: CertificateStatus & { readonly account?: string },
  many: boolean,
  width: number | undefined,
): string[] {
  const p = s.preflight;
  if (p?.status !== "will-fail") return [];
  const who = `${many && s.account ? `${s.account}: ` : ""}${s.certificateName}`;
  const held = p.blocks
    ? `; the sweep holds its renewal (${p.blocks}) until a preflight passes, this one is over a day old, or it is forced (certsched renew --force)`
    : "";
  const lines = wrapToWidth(
    oneLine(`${who} ${preflightWord(p)}, checked ${minute(p.at)}${held}`),
    width,
    "",
    "  ",
  );
  for (const c of p.checks.filter((x) => x.status === "fail")) {
    lines.push(...wrapToWidth(oneLine(`${c.check} ${c.reason}: ${c.detail}`), width, "  ", "    "));
    if (c.advice) lines.push(...wrapToWidth(`what to do: ${c.advice}`, width, "    ", "      "));
  }
  return lines;
}

function wordPaint(s: CertificateStatus, paint: Palette): Paint | undefined {
  const word = s.status;
  if (ACT.has(word) || s.critical) return paint.red;
  if (LOOK.has(word)) return paint.yellow;
  return word === "ok" ? paint.green : undefined;
}

/** Whether a certificate's reason is printed in full under the table. */
const explained = (s: CertificateStatus) =>
  ACT.has(s.status) ||
  s.status === "unverifiable" ||
  (s.status === "pending" && s.ledger?.outcome === "answer-unknown");

function render(
  statuses: readonly (CertificateStatus & { readonly account?: string })[],
  io: Io,
  many = false,
  preflight?: ReadonlySet<PreflightFilter>,
): string[] {
  const paint = palette(io.stdout, io.env);
  if (statuses.length === 0 && preflight !== undefined) {
    return [`No certificate's last preflight is ${[...preflight].join(" or ")}.`];
  }
  if (statuses.length === 0) {
    return ["certsched knows no certificate yet: the inventory and the renewal ledger are empty."];
  }
  const lines = renderTable(
    [
      ...(many ? [{ heading: "ACCOUNT" }] : []),
      { heading: "CERTIFICATE", shrink: 1 },
      { heading: "STATUS" },
      // Cut first when the terminal is narrow: the reasons are under the table in full.
      { heading: "PREFLIGHT", shrink: 2 },
      { heading: "SERVED" },
      { heading: "SERVICE" },
      { heading: "LAST REQUEST" },
      { heading: "TRIES" },
    ],
    statuses.map((s) => [
      ...(many ? [s.account ?? "-"] : []),
      s.certificateName,
      cell(s.status, wordPaint(s, paint)),
      preflightCell(s, paint),
      expiryCell(s.expiry.served, s.expiry.servedDaysLeft, paint),
      expiryCell(s.expiry.service, s.expiry.serviceDaysLeft, paint),
      minute(s.ledger?.lastRequestedAt ?? null),
      s.ledger ? String(s.ledger.attempts) : "-",
    ]),
    { header: paint.bold, width: io.stdout.columns },
  );
  // The reasons in full, under the table: a cut cause is no use at 2 a.m.
  const reasons = statuses.filter(explained);
  if (reasons.length > 0) lines.push("");
  for (const s of reasons) {
    const outcome = s.ledger
      ? ` [${s.ledger.outcome}${s.ledger.reason ? `, ${s.ledger.reason}` : ""}]`
      : "";
    lines.push(
      ...wrapToWidth(
        oneLine(
          `${many && s.account ? `${s.account}: ` : ""}${s.certificateName} ${s.status}${outcome}: ${s.why}`,
        ),
        io.stdout.columns,
        "",
        "  ",
      ),
    );
  }
  // The CA's own word (ARI), one line each (the timer renews once the window has started).
  const withAri = statuses.filter((s) => s.ari !== null);
  if (withAri.length > 0) lines.push("");
  for (const s of withAri) {
    const who = `${many && s.account ? `${s.account}: ` : ""}${s.certificateName}`;
    const line = oneLine(`${who}: ${ariLine(s.ari as AriView)}`);
    lines.push(...wrapToWidth(line, io.stdout.columns, "", "  "));
  }
  // The renewal calendar's word, one line each (nothing when no calendar is declared).
  const windowed = statuses.filter((s) => s.window);
  if (windowed.length > 0) lines.push("");
  for (const s of windowed) {
    const who = `${many && s.account ? `${s.account}: ` : ""}${s.certificateName}`;
    const line = oneLine(`${who}: ${s.window?.text}`);
    lines.push(...wrapToWidth(line, io.stdout.columns, "", "  "));
  }
  const failing = statuses.filter((s) => s.preflight?.status === "will-fail");
  if (failing.length > 0) lines.push("");
  for (const s of failing) lines.push(...preflightLines(s, many, io.stdout.columns));
  return lines;
}

/** --preflight's words, as a set; a usage error naming them when one is not a filter word. */
function preflightFilter(text: string | undefined): ReadonlySet<PreflightFilter> | undefined {
  if (text === undefined) return undefined;
  const words = text.split(",");
  if (
    !words.every((w): w is PreflightFilter => (PREFLIGHT_FILTERS as readonly string[]).includes(w))
  ) {
    throw new UsageError(
      `--preflight must be one or more of ${PREFLIGHT_FILTERS.join(", ")}, separated by commas`,
      "status",
    );
  }
  return new Set(words);
}

type ServiceState = "reachable" | "unreachable" | "not-configured" | "not-asked";

/** What every account's statuses are read with: the command's flags and the warning days. */
interface StatusReadOptions {
  offline: boolean;
  names: readonly string[];
  warnDays: number;
  preflight: ReadonlySet<PreflightFilter> | undefined;
}

/** One account's statuses as read, with what its service and its storage said. */
interface AccountStatus {
  readonly account: string;
  readonly serviceState: ServiceState;
  readonly statuses: CertificateStatus[];
  readonly requests7d: number | null;
  readonly loaded: LoadedStatus;
  /** Its Certificate Transparency issuances; undefined without a store (storage only). */
  readonly issuances?: IssuanceStatus | undefined;
}

/** One account's statuses, read from its own tables (and its service's due list, unless offline). */
async function statusOf(
  a: AccountStorage,
  access: StorageAccess,
  io: Io,
  options: StatusReadOptions,
): Promise<AccountStatus> {
  const { service } = a;
  let due: CertificateRecord[] = [];
  let serviceState: ServiceState = "not-configured";
  if (options.offline) {
    serviceState = "not-asked";
  } else if (service?.settings.subscriptionId) {
    try {
      due = (await service.client.listDue()).certificates;
      serviceState = "reachable";
    } catch (error) {
      serviceState = "unreachable";
      const who = access.many ? `account ${a.account}: ` : "";
      note(
        io,
        `certsched: ${who}the due list could not be read, so the expiry as the service says is the inventory's: ${redact(ensureError(error).message)}`,
      );
    }
  }
  const now = access.now();
  const inventory = withServiceRecords(
    service?.inventory ??
      tableInventoryOnFirstUse({ ...access.where, tableName: a.tables.inventory }),
    due,
    now,
    "due-list",
  );
  const loaded = await loadStatus(
    {
      inventory,
      ledgerRows: () => listLedgerRowsOnFirstUse({ ...access.where, tableName: a.tables.ledger }),
    },
    options.names.length > 0 ? { names: options.names } : {},
  );
  const statusOptions = {
    now,
    graceMs: service?.settings.renewalGraceMs ?? 2 * 3_600_000,
    warnDays: options.warnDays,
    calendar: calendarOf(service?.settings, a.account),
    nextTick: service?.renewalTimer,
  };
  const { preflight } = options;
  const statuses = loaded.inputs
    .map((input) => certificateStatus(input, statusOptions))
    .filter((s) => preflight === undefined || preflight.has(preflightFilterOf(s.preflight)));
  const requests7d = await requestsLast7Days(
    { requests: service?.requests, history: a.history },
    now,
  );
  return { account: a.account, serviceState, statuses, requests7d, loaded };
}

/**
 * One account's statuses and its unexpected issuances, read side by side: the issuances best
 * effort (a store that fails is a warning, never a failed status).
 */
async function accountStatusOf(
  a: AccountStorage,
  access: StorageAccess,
  io: Io,
  options: StatusReadOptions,
): Promise<AccountStatus> {
  const [status, issuances] = await Promise.all([
    statusOf(a, access, io, options),
    readIssuanceStatus(a.service?.transparency, a.account),
  ]);
  return { ...status, issuances };
}

/** The options every account's statuses are read with, from the flags and the settings. */
async function readOptions(
  args: ParsedArgs,
  io: Io,
  preflight: ReadonlySet<PreflightFilter> | undefined,
): Promise<StatusReadOptions> {
  // The same settings again, for CERTSCHED_VERIFY_WARN_DAYS: their name warnings were
  // already written once, by withStorage.
  const { env } = await cliEnv({ ...io, stderr: { ...io.stderr, write: () => {} } });
  return {
    offline: args.values.offline === true,
    names: args.positionals,
    warnDays: loadVerifySettings(env).warnDays,
    preflight,
  };
}

/** Each account's failure reported on stderr, in declaration order; what each one said. */
function reportFailures(
  outcomes: readonly AccountOutcome<AccountStatus>[],
  io: Io,
): (AccountFailure & { readonly account: string })[] {
  return outcomes.flatMap((o) =>
    o.ok ? [] : [{ account: o.account, ...reportAccountFailure(o.error, io, o.account, "status") }],
  );
}

/** The rows that could not be read, named by account when several are read. */
function invalidRows(read: readonly AccountStatus[], many: boolean): string[] {
  return read.flatMap((r) =>
    r.loaded.invalid.map((p) => (many ? `account ${r.account}: ${p}` : p)),
  );
}

/**
 * The --json document: the certificates and the rows not read; the service's state and the
 * request count at the top for one account, per account under "accounts" for several.
 */
function writeJson(
  io: Io,
  many: boolean,
  outcomes: readonly AccountOutcome<AccountStatus>[],
  failures: readonly (AccountFailure & { readonly account: string })[],
  now: Date,
): void {
  const read = outcomes.flatMap((o) => (o.ok ? [o.value] : []));
  const rows = read.flatMap((r) => r.statuses.map((s) => withAccount(r.account, s)));
  const truncated = read.some((r) => r.loaded.truncated);
  const [first] = read;
  const accounts = outcomes.map((o) => {
    const r = read.find((x) => x.account === o.account);
    const problems = failures.filter((f) => f.account === o.account).map((f) => f.message);
    return {
      name: o.account,
      service: r?.serviceState ?? null,
      requests7d: r?.requests7d ?? null,
      failed: problems.length > 0,
      problems,
    };
  });
  const document = {
    ...(!many && first ? { service: first.serviceState, requests7d: first.requests7d } : {}),
    certificates: rows,
    invalid: invalidRows(read, many),
    issuances: issuancesJson(read, now),
    ...(truncated ? { truncated: true } : {}),
    ...(many ? { accounts } : {}),
  };
  io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

/** For people: the table (an ACCOUNT column for several accounts), then the request counts. */
function writeText(
  io: Io,
  many: boolean,
  read: readonly AccountStatus[],
  preflight: ReadonlySet<PreflightFilter> | undefined,
): void {
  const [first] = read;
  const paint = palette(io.stdout, io.env);
  const issuances = issuanceLines(read, many, paint, io.stdout.columns);
  if (!many && first) {
    const lines = [...render(first.statuses, io, false, preflight), ...issuances];
    lines.push("", `Requests sent to the service in the last 7 days: ${first.requests7d ?? "-"}`);
    io.stdout.write(`${lines.join("\n")}\n`);
  } else {
    const rows = read.flatMap((r) => r.statuses.map((s) => withAccount(r.account, s)));
    const lines = [...render(rows, io, true, preflight), ...issuances];
    lines.push("", "Requests sent to the service in the last 7 days:");
    for (const r of read) lines.push(`- ${r.account}: ${r.requests7d ?? "-"}`);
    io.stdout.write(`${lines.join("\n")}\n`);
  }
}

/** The warnings after the output: accounts cut at the maximum, then the rows not read. */
function writeNotes(io: Io, many: boolean, read: readonly AccountStatus[]): void {
  for (const r of read.filter((x) => x.loaded.truncated)) {
    const who = many ? `account ${r.account}: ` : "";
    note(
      io,
      `certsched: ${who}the first ${r.statuses.length} certificates by name; name the ones you want`,
    );
  }
  for (const problem of invalidRows(read, many)) note(io, `certsched: ${problem}`);
  for (const problem of issuanceNotes(read, many)) note(io, `certsched: ${problem}`);
}

export const statusCommand: Command = {
  name: "status",
  help: HELP,
  options: { ...JSON_OPTION, offline: { type: "boolean" }, preflight: { type: "string" } },
  maxPositionals: 1_000,
  run: async (args, io) => {
    // A word it does not know is a usage error before anything is read.
    const preflight = preflightFilter(args.values.preflight as string | undefined);
    return withStorage(io, { args, command: "status", scope: "each" }, async (access) => {
      const options = await readOptions(args, io, preflight);
      const outcomes = await overAccounts(
        access.accounts.map((a) => a.account),
        access.concurrency,
        (name) => {
          const a = access.accounts.find((x) => x.account === name) as AccountStorage;
          return accountStatusOf(a, access, io, options);
        },
      );
      // One account: the storage's failure is reported as every command's (exit 1).
      if (!access.many && outcomes[0] && !outcomes[0].ok) throw outcomes[0].error;
      const failures = reportFailures(outcomes, io);
      const read = outcomes.flatMap((o) => (o.ok ? [o.value] : []));
      if (args.values.json === true) {
        writeJson(io, access.many, outcomes, failures, access.now());
      } else {
        writeText(io, access.many, read, preflight);
      }
      writeNotes(io, access.many, read);
      return failures.length > 0 ? EXIT.failed : EXIT.ok;
    });
  },
};
