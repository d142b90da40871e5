import type { Seams } from "../../shared/app/seams.js";
import {
  type IssuanceState,
  type IssuanceView,
  issuanceView,
} from "../../shared/core/transparency/issuanceView.js";
import { UsageError } from "../../shared/lib/errors.js";
import {
  type Acknowledged,
  acknowledgeIssuance,
} from "../../shared/usecases/acknowledgeIssuance.js";
import {
  ISSUANCE_STATES,
  type IssuanceCounts,
  issuanceCounts,
  listIssuances,
  parseSince,
  SINCE_RULE,
} from "../../shared/usecases/listIssuances.js";
import { withAccountPorts, withServices } from "../accountPorts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { type AccountFailure, EXIT, reportAccountFailure } from "../failure.js";
import type { Io } from "../io.js";
import { type Palette, palette } from "../output/color.js";
import { renderTable } from "../output/table.js";
import { cutToWidth, oneLine, wrapToWidth } from "../output/text.js";
import type { ParsedArgs } from "../usage.js";

const HELP = `Usage: certsched ct [--since DATE] [--state STATE] [--account NAME] [--json]
       certsched ct ack ID --reason TEXT [--account NAME] [--json]

Lists the certificates Certificate Transparency logs show for the names
certsched watches (the watch runs on CERTSCHED_CT_SCHEDULE), newest first:
a table per account and watched name with ID, STATE, NAMES, ISSUER, VALID
(not before..not after), WHY (shortened), revoked and expired ones marked.
Unexpected issuances (nothing certsched did explains them) are red, and each
is written out in full under the tables. Changes nothing.

States: expected (same key or TBS hash as a certificate certsched read, or
issued after its own request), pending (may be certsched's own request,
judged when it lands or its window ends), unexpected, acknowledged (an
unexpected one a person looked at).

ct ack ID --reason TEXT acknowledges an unexpected issuance: its red line
goes, and the history keeps who ("cli") and why. Only an unexpected one can
be acknowledged; one acknowledged before keeps its first reason.

Options:
  --since DATE    First seen since: 2026-01-31, 2026-01-31T08:00:00Z, or a
                  duration back from now (30d, 12h, P7D).
  --state STATE   Only expected, pending, unexpected or acknowledged.
  --account NAME  That account's issuances only; without it, every account's.
                  ct ack needs it when several accounts are declared.
  --reason TEXT   Why the issuance is no concern (ct ack): 1 to 500
                  characters, no control characters.
  --json          One JSON document: { "issuances": [ { "account", "id",
                  "watched", "state", "why", "names", "moreNames", "issuer",
                  "notBefore", "notAfter", "revoked", "expired",
                  "certificateName", "firstSeenAt", "link", "acknowledged",
                  "problems" } ], "counts": { "expected", "pending",
                  "unexpected", "acknowledged" }, "warnings" };
                  ct ack: { "status", "account", "issuance" }.
  -h, --help      Show this help.

Exit codes (ct): 0 listed, none unexpected; 1 an unexpected issuance no one
acknowledged is listed, or an account could not be read; 2 usage or
configuration error.
Exit codes (ct ack): 0 acknowledged (now or before); 1 no such issuance in
the account, or it is not unexpected; 2 a bad ID or reason, usage or
configuration error.
`;

/** What tests put in place of the stores; the built CLI passes none. */
export interface CtCommandPorts {
  readonly seams?: Seams;
}

/** Longest WHY shown in a table; unexpected issuances have theirs in full under the tables. */
export const WHY_SHOWN = 60;

const day = (iso: string | undefined) => (iso ? iso.slice(0, 10) : "?");

/** "unexpected", "expected, revoked", "acknowledged, expired". */
export function stateWords(view: IssuanceView): string {
  return [
    view.state,
    ...(view.revoked ? ["revoked"] : []),
    ...(view.expired ? ["expired"] : []),
  ].join(", ");
}

/** "www.contoso.example, api.contoso.example (+3 not kept)". */
function namesText(view: IssuanceView): string {
  const names = view.names.length > 0 ? view.names.join(", ") : "(no names)";
  return view.moreNames > 0 ? `${names} (+${view.moreNames} not kept)` : names;
}

/** The issuances grouped by account, then watched name, in the order first met (newest first). */
function groups(views: readonly IssuanceView[]): IssuanceView[][] {
  const byKey = new Map<string, IssuanceView[]>();
  for (const view of views) {
    const key = JSON.stringify([view.account, view.watched]);
    byKey.set(key, [...(byKey.get(key) ?? []), view]);
  }
  return [...byKey.values()];
}

function table(views: readonly IssuanceView[], paint: Palette, width: number | undefined) {
  return renderTable(
    [
      { heading: "ID" },
      { heading: "STATE" },
      { heading: "NAMES", shrink: 2 },
      { heading: "ISSUER", shrink: 3 },
      { heading: "VALID" },
      { heading: "WHY", shrink: 4 },
    ],
    views.map((v) => {
      const red = v.state === "unexpected" ? paint.red : undefined;
      return [
        v.id,
        stateWords(v),
        namesText(v),
        v.issuer ?? "?",
        `${day(v.notBefore)}..${day(v.notAfter)}`,
        cutToWidth(oneLine(v.why), WHY_SHOWN),
      ].map((text) => ({ text, paint: red }));
    }),
    { header: paint.bold, width },
  );
}

/** Each unexpected issuance in full: what, why, where to look. */
function unexpectedLines(
  views: readonly IssuanceView[],
  many: boolean,
  width: number | undefined,
): string[] {
  const lines: string[] = [];
  for (const v of views.filter((x) => x.state === "unexpected")) {
    const of = many ? ` of account "${v.account}"` : "";
    const text = `issuance ${v.id} for "${v.watched}"${of}: ${namesText(v)} by ${v.issuer ?? "an unknown issuer"}, valid ${v.notBefore ?? "?"} to ${v.notAfter ?? "?"}: ${v.why}${v.link ? ` (${v.link})` : ""}`;
    lines.push(...wrapToWidth(oneLine(text), width, "", "  "));
  }
  return lines.length > 0 ? ["", ...lines] : [];
}

/** "4 issuances: 1 unexpected, 1 acknowledged, 1 pending, 1 expected." and what to do. */
export function summaryLine(counts: IssuanceCounts, many: boolean): string {
  const total = counts.expected + counts.pending + counts.unexpected + counts.acknowledged;
  const parts = (["unexpected", "acknowledged", "pending", "expected"] as const)
    .filter((s) => counts[s] > 0)
    .map((s) => `${counts[s]} ${s}`);
  const head = `${total} issuance${total === 1 ? "" : "s"}${parts.length > 0 ? `: ${parts.join(", ")}` : ""}.`;
  if (counts.unexpected === 0) return head;
  const account = many ? " --account NAME" : "";
  return `${head} Look at each unexpected one; when it is no concern: certsched ct ack ID --reason TEXT${account}`;
}

/** The tables (one per account and watched name), the unexpected in full, the summary. */
export function issuanceText(
  views: readonly IssuanceView[],
  counts: IssuanceCounts,
  options: { readonly many: boolean; readonly paint: Palette; readonly width: number | undefined },
): string[] {
  const { many, paint, width } = options;
  const lines: string[] = [];
  for (const group of groups(views)) {
    const first = group[0] as IssuanceView;
    if (lines.length > 0) lines.push("");
    const heading = `${many ? `${first.account}: ` : ""}${first.watched}`;
    lines.push(paint.bold(oneLine(heading)));
    lines.push(...table(group, paint, width));
  }
  lines.push(...unexpectedLines(views, many, width));
  const summary = wrapToWidth(summaryLine(counts, many), width, "");
  lines.push("", ...(counts.unexpected > 0 ? summary.map((l) => paint.red(l)) : summary));
  return lines;
}

/** The list's filters from the flags; a bad one is a usage error before anything is read. */
function listFilter(args: ParsedArgs): {
  readonly since?: string;
  readonly state?: IssuanceState;
} {
  const { since, state, reason } = args.values;
  if (reason !== undefined) {
    throw new UsageError("--reason is for certsched ct ack ID --reason TEXT", "ct");
  }
  if (typeof since === "string" && !parseSince(since, new Date())) {
    throw new UsageError(`--since ${SINCE_RULE}`, "ct");
  }
  if (state !== undefined && !ISSUANCE_STATES.includes(state as IssuanceState)) {
    throw new UsageError(`--state must be one of ${ISSUANCE_STATES.join(", ")}`, "ct");
  }
  return {
    ...(typeof since === "string" ? { since } : {}),
    ...(state === undefined ? {} : { state: state as IssuanceState }),
  };
}

const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * One JSON document, as JSON.stringify writes it but for the characters it leaves raw (DEL, C1
 * controls, line separators, direction marks): written as \u escapes, so the document means
 * the same text and no terminal acts on them, whatever stream it goes to.
 */
function jsonDocument(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (ch) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`)}\n`;
}

/** Warnings and notes on stderr, one wrapped line each. */
function note(io: Io, text: string): void {
  io.stderr.write(`${wrapToWidth(oneLine(text), io.stderr.columns, "").join("\n")}\n`);
}

/** What `ct` and `ct ack` say when no store keeps issuances (its kind is "none"). */
const NO_STORE = "no storage for Certificate Transparency issuances is configured";

/** What a list read: every account's issuances newest first, warnings, accounts that failed. */
interface Listed {
  readonly issuances: IssuanceView[];
  readonly counts: IssuanceCounts;
  readonly warnings: string[];
  readonly failures: (AccountFailure & { readonly account: string })[];
  readonly many: boolean;
  readonly stored: boolean;
}

async function readList(
  args: ParsedArgs,
  io: Io,
  seams: Seams,
  filter: ReturnType<typeof listFilter>,
): Promise<Listed> {
  return withServices(io, [], seams, { args, command: "ct", scope: "each" }, async (cli) => {
    const now = cli.services.app.now();
    const since = filter.since === undefined ? undefined : parseSince(filter.since, now);
    const outcomes = await cli.each((runtime) =>
      listIssuances(runtime, { since, state: filter.state }),
    );
    // One account: its failure is reported as every command's (exit 1).
    const only = outcomes[0];
    if (!cli.many && only && !only.ok) throw only.error;
    const failures = outcomes.flatMap((o) =>
      o.ok ? [] : [{ account: o.account, ...reportAccountFailure(o.error, io, o.account, "ct") }],
    );
    const parts = outcomes.flatMap((o) => (o.ok ? [{ account: o.account, ...o.value }] : []));
    const issuances = parts
      .flatMap((p) => p.issuances)
      .sort((a, b) => Date.parse(b.firstSeenAt) - Date.parse(a.firstSeenAt));
    const warnings = parts.flatMap((p) =>
      p.warnings.map((w) => (cli.many ? `account ${p.account}: ${w}` : w)),
    );
    const stored = cli.services.app.transparency.kind !== "none";
    const counts = issuanceCounts(issuances);
    return { issuances, counts, warnings, failures, many: cli.many, stored };
  });
}

async function runList(args: ParsedArgs, io: Io, seams: Seams): Promise<number> {
  const filter = listFilter(args);
  const listed = await readList(args, io, seams, filter);
  const { issuances, counts, warnings, failures, many } = listed;
  if (args.values.json === true) {
    const document = {
      issuances,
      counts,
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(failures.length > 0 ? { accountErrors: failures } : {}),
    };
    io.stdout.write(jsonDocument(document));
  } else if (issuances.length === 0) {
    const since = filter.since === undefined ? "" : ` since ${filter.since}`;
    const state = filter.state === undefined ? "" : ` in state ${filter.state}`;
    io.stdout.write(`${oneLine(`No Certificate Transparency issuances kept${since}${state}.`)}\n`);
  } else {
    const paint = palette(io.stdout, io.env);
    const lines = issuanceText(issuances, counts, { many, paint, width: io.stdout.columns });
    io.stdout.write(`${lines.join("\n")}\n`);
  }
  if (!listed.stored) {
    note(io, `certsched: ${NO_STORE}: nothing to list`);
  }
  for (const w of warnings) note(io, `certsched: ${w}`);
  return failures.length > 0 || counts.unexpected > 0 ? EXIT.failed : EXIT.ok;
}

/** `ct ack ID --reason TEXT`: its flags checked before anything is read. */
function ackRequest(args: ParsedArgs): { readonly id: string; readonly reason: string } {
  const [, id] = args.positionals;
  const { reason, since, state } = args.values;
  if (id === undefined) {
    throw new UsageError("ct ack needs the issuance's ID: certsched ct ack ID --reason TEXT", "ct");
  }
  if (typeof reason !== "string") {
    throw new UsageError("ct ack needs --reason TEXT: why the issuance is no concern", "ct");
  }
  if (since !== undefined || state !== undefined) {
    throw new UsageError("--since and --state are for the list, not ct ack", "ct");
  }
  return { id, reason };
}

async function runAck(args: ParsedArgs, io: Io, seams: Seams): Promise<number> {
  const { id, reason } = ackRequest(args);
  const choice = { args, command: "ct" };
  const answer = await withAccountPorts(io, [], seams, choice, async (runtime) => {
    const done = await acknowledgeIssuance(runtime, { id, reason, by: "cli", trigger: "cli" });
    const view = "seen" in done ? issuanceView(done.seen, runtime.now()) : undefined;
    const stored = runtime.transparency.kind !== "none";
    return { done, view, account: runtime.account, id, stored };
  });
  const { done, view, account } = answer;
  if (!answer.stored) note(io, `certsched: ${NO_STORE}`);
  if (args.values.json === true) {
    const document = { status: done.status, account, ...(view ? { issuance: view } : {}) };
    io.stdout.write(jsonDocument(document));
  }
  const said = ackWords(answer);
  const out = done.status === "acknowledged" || done.status === "already-acknowledged";
  if (args.values.json !== true && out) io.stdout.write(`${oneLine(said)}\n`);
  else if (!out) note(io, `certsched: ${said}`);
  if (done.status === "acknowledged" && done.historyProblem) {
    note(io, `certsched: the history could not record it: ${done.historyProblem}`);
  }
  return out ? EXIT.ok : EXIT.failed;
}

/** What `ct ack` says of its outcome, in one line. */
function ackWords({
  done,
  view,
  account,
  id,
}: {
  readonly done: Acknowledged;
  readonly view: IssuanceView | undefined;
  readonly account: string;
  readonly id: string;
}): string {
  const what = view ? `issuance ${view.id} for "${view.watched}"` : "";
  switch (done.status) {
    case "acknowledged":
      return `Acknowledged ${what}: ${view?.acknowledged?.reason ?? ""}`;
    case "already-acknowledged":
      return `Already acknowledged ${what} at ${view?.acknowledged?.at} by ${view?.acknowledged?.by}: ${view?.acknowledged?.reason}`;
    case "not-unexpected":
      return `${what} is ${done.state}: only an unexpected issuance is acknowledged`;
    case "not-found":
      return `account "${account}" keeps no issuance ${id}: certsched ct lists them`;
  }
}

/** `certsched ct` with the stores `deps` give (tests); ctCommand is the built CLI's. */
export function ctCommandWith(deps: CtCommandPorts): Command {
  const seams = deps.seams ?? {};
  return {
    name: "ct",
    help: HELP,
    options: {
      ...JSON_OPTION,
      since: { type: "string" },
      state: { type: "string" },
      reason: { type: "string" },
    },
    maxPositionals: 2,
    run: async (args, io) => {
      const [sub] = args.positionals;
      if (sub === "ack") return runAck(args, io, seams);
      if (sub !== undefined) {
        throw new UsageError(
          `unknown subcommand "${oneLine(sub)}": certsched ct, or certsched ct ack ID --reason TEXT`,
          "ct",
        );
      }
      return runList(args, io, seams);
    },
  };
}

export const ctCommand: Command = ctCommandWith({});
