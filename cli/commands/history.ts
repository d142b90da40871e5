import type { CertificateEvent } from "../../shared/core/history/events.js";
import {
  receiptSentence,
  receiptView,
  renewalReceipts,
} from "../../shared/core/history/receipts.js";
import { UsageError } from "../../shared/lib/errors.js";
import { mapWithConcurrency } from "../../shared/lib/pool.js";
import { parseDuration } from "../../shared/lib/time.js";
import { withAccount } from "../accounts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import type { Io } from "../io.js";
import { palette } from "../output/color.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { type StorageAccess, withStorage } from "../storage.js";
import { minute } from "./status.js";

const HELP = `Usage: certsched history [<certificateName>] [--since 30d] [--account NAME]
                         [--json]

Shows what happened, newest first: renewals asked for by hand (and by whom),
accepted, failed (with status and cause), answered too late, stuck, skipped
or not attempted, verified, landed, for one certificate or all. Then, for
each renewal, its receipt: "served certificate changed from <SHA-256>
(expires ...) to <SHA-256> (expires ...) at ...", or that it has not
changed since the renewal was accepted, or that what was served before is
not known. Changes nothing.

Reads the function app's storage: CERTSCHED_LEDGER_TABLE_URI (with your own
Azure identity, DefaultAzureCredential: az login) or AzureWebJobsStorage.

Options:
  --since D    How far back, as a duration: 30d (default), 12h, P7D.
  --account NAME  That account's history only; without it, every account's
               (an ACCOUNT column when there are several).
  --json       Print one JSON document: { "events": [ { "at",
               "certificateName", "id", "event", "trigger", "runId", "by",
               "reason", "detail", "status", "error", "expiryDate", "before",
               "after" } ] (with "account" when accounts are declared),
               "receipts": [ { "certificateName", "acceptedAt", "before",
               "after", "changedAt", "text" } ],
               "invalid": [ rows not read ] }.
  -h, --help   Show this help.

Exit codes: 0 shown; 1 the storage could not be read; 2 usage or
configuration error.
`;

/** Events a person has to look at: painted red, their causes in full under the table. */
const PROBLEMS: ReadonlySet<string> = new Set([
  "failed",
  "stuck",
  "not-attempted",
  "answer-unknown",
]);

/** At most this many events are shown; --since narrows the window. */
const MAX_EVENTS = 1000;

/** One event read, with the account whose history it is in. */
interface TaggedEvent {
  readonly account: string;
  readonly e: CertificateEvent;
}

/** The events of every account chosen, newest first, and the rows that could not be read. */
interface EventsRead {
  readonly tagged: TaggedEvent[];
  readonly invalid: string[];
}

/** The window --since asks for, in milliseconds (30 days without it). */
function sinceWindowMs(since: unknown): number {
  const sinceText = typeof since === "string" ? since : "30d";
  const sinceMs = parseDuration(sinceText);
  if (sinceMs === undefined) {
    throw new UsageError("--since must be a duration like 30d, 12h or P7D", "history");
  }
  return sinceMs;
}

/** Each account's events since then (for one certificate when named), merged newest first. */
async function readEvents(
  { accounts, many, concurrency }: StorageAccess,
  name: string | undefined,
  since: Date,
): Promise<EventsRead> {
  const read = await mapWithConcurrency(accounts, concurrency, async (a) => {
    const { items, invalid } = await a.history.events({
      certificateName: name,
      since,
      limit: MAX_EVENTS,
    });
    const who = many ? `account ${a.account}: ` : "";
    return {
      items: items.map((e) => ({ account: a.account, e })),
      invalid: invalid.map((problem) => `${who}${problem}`),
    };
  });
  // Newest first over every account, at most MAX_EVENTS in all.
  const tagged = read
    .flatMap((r) => r.items)
    .sort((x, y) => y.e.at.getTime() - x.e.at.getTime())
    .slice(0, MAX_EVENTS);
  const invalid = read.flatMap((r) => r.invalid);
  return { tagged, invalid };
}

/** The --json document: the events, the receipts of their renewals, and the rows not read. */
function writeJson(io: Io, { tagged, invalid }: EventsRead, declared: boolean): void {
  const items = tagged.map((t) => t.e);
  const events = declared ? tagged.map((t) => withAccount(t.account, t.e)) : items;
  const receipts = renewalReceipts(items).map((r) => ({
    certificateName: r.certificateName,
    ...receiptView(r),
  }));
  io.stdout.write(`${JSON.stringify({ events, receipts, invalid }, null, 2)}\n`);
}

/** The table of events, one row each, problems painted red. */
function eventTable(io: Io, tagged: readonly TaggedEvent[], many: boolean): string[] {
  const paint = palette(io.stdout, io.env);
  return renderTable(
    [
      ...(many ? [{ heading: "ACCOUNT" }] : []),
      { heading: "WHEN (UTC)" },
      { heading: "CERTIFICATE", shrink: 1 },
      { heading: "EVENT" },
      { heading: "BY" },
      { heading: "DETAIL", shrink: 2 },
    ],
    tagged.map(({ account, e }) => [
      ...(many ? [account] : []),
      minute(e.at.toISOString()),
      e.certificateName,
      {
        text: e.event,
        paint: PROBLEMS.has(e.event) ? paint.red : undefined,
      },
      e.by ?? e.trigger,
      [e.status, e.detail].filter((x) => x !== undefined).join(" ") || (e.reason ?? ""),
    ]),
    { header: paint.bold, width: io.stdout.columns },
  );
}

/** The causes in full, under the table: a cut cause is no use at 2 a.m. */
function causeLines(
  tagged: readonly TaggedEvent[],
  many: boolean,
  columns: number | undefined,
): string[] {
  const causes = tagged.filter(({ e }) => PROBLEMS.has(e.event) && e.detail);
  const lines: string[] = [];
  if (causes.length > 0) lines.push("");
  for (const { account, e } of causes) {
    const who = many ? `${account} ` : "";
    const head = `${minute(e.at.toISOString())} ${who}${e.certificateName} ${e.event}`;
    const cause = [e.status, e.error, e.detail].filter((x) => x !== undefined).join(" ");
    lines.push(...wrapToWidth(oneLine(`${head}: ${cause}`), columns, "", "  "));
  }
  return lines;
}

/**
 * One line per renewal among the events shown, after them: what was served before and after it.
 * With a certificate named, the sentence alone; else after the certificate's name.
 */
function receiptLines(
  tagged: readonly TaggedEvent[],
  named: boolean,
  columns: number | undefined,
): string[] {
  const byAccount = new Map<string, CertificateEvent[]>();
  for (const { account, e } of tagged)
    byAccount.set(account, [...(byAccount.get(account) ?? []), e]);
  const many = byAccount.size > 1;
  const lines: string[] = [];
  for (const [account, events] of byAccount) {
    for (const r of renewalReceipts(events)) {
      const who = `${many ? `${account} ` : ""}${named ? "" : `${r.certificateName}: `}`;
      lines.push(...wrapToWidth(oneLine(`${who}${receiptSentence(r)}`), columns, "", "  "));
    }
  }
  return lines.length > 0 ? ["", ...lines] : [];
}

/** For people: the table, the causes of the problems in full, then the receipts. */
function writeText(
  io: Io,
  tagged: readonly TaggedEvent[],
  many: boolean,
  name: string | undefined,
): void {
  const lines = eventTable(io, tagged, many);
  lines.push(...causeLines(tagged, many, io.stdout.columns));
  lines.push(...receiptLines(tagged, name !== undefined, io.stdout.columns));
  io.stdout.write(`${lines.join("\n")}\n`);
  if (tagged.length >= MAX_EVENTS) {
    io.stderr.write(`certsched: the latest ${MAX_EVENTS} events; narrow --since for older ones\n`);
  }
}

/** The rows that could not be read, one warning each. */
function writeInvalid(io: Io, invalid: readonly string[]): void {
  for (const problem of invalid) {
    io.stderr.write(
      `${wrapToWidth(oneLine(`certsched: ${problem}`), io.stderr.columns, "").join("\n")}\n`,
    );
  }
}

export const historyCommand: Command = {
  name: "history",
  help: HELP,
  options: { ...JSON_OPTION, since: { type: "string" } },
  maxPositionals: 1,
  run: async (args, io) => {
    const sinceMs = sinceWindowMs(args.values.since);
    const name = args.positionals[0];
    const choice = { args, command: "history", scope: "each" } as const;
    return withStorage(io, choice, async (access) => {
      const since = new Date(access.now().getTime() - sinceMs);
      const read = await readEvents(access, name, since);
      if (args.values.json === true) {
        writeJson(io, read, access.declared);
      } else if (read.tagged.length === 0) {
        io.stdout.write(`No history since ${minute(since.toISOString())} UTC.\n`);
      } else {
        writeText(io, read.tagged, access.many, name);
      }
      writeInvalid(io, read.invalid);
      return EXIT.ok;
    });
  },
};
