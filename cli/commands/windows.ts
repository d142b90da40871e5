import type { Settings } from "../../shared/core/settings.js";
import { localAndUtc } from "../../shared/core/status/windowView.js";
import type { Freeze, RenewalCalendar } from "../../shared/core/windows/calendar.js";
import { AccountCalendar, type UpcomingOpening } from "../../shared/core/windows/timing.js";
import { openingText } from "../../shared/core/windows/timingWords.js";
import { DAY_MS } from "../../shared/lib/time.js";
import { requestedAccount, selectAccounts } from "../accounts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { cliSettings } from "../config.js";
import { EXIT } from "../exit.js";
import type { Io } from "../io.js";
import { palette } from "../output/color.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { integerFlag } from "../usage.js";

const HELP = `Usage: certsched windows [--account NAME] [--days N] [--json]

Shows an account's renewal calendar (docs/renewal-windows.md) for the next N
days: each opening of its renewal windows (when it opens in the window's time
zone and in UTC, when it closes, which window, which certificates it covers,
and the freeze that holds it, if one does: nothing is renewed in it then),
the freezes, the certificates its policy disables, and the warnings the
settings gave when they were loaded. Every account's, or --account NAME's.

Reads only the settings (CERTSCHED_RENEWAL_WINDOWS, CERTSCHED_RENEWAL_FREEZES,
CERTSCHED_CERTIFICATE_POLICY, each account's "windows", "freezes" and
"certificatePolicy" in CERTSCHED_ACCOUNTS): sends no request, needs no service
reachable, so a declaration can be checked before it is deployed. A
declaration that cannot be loaded (a window that never opens, a malformed
cron, an unknown time zone...) is a configuration error naming it.

Options:
  --account NAME  Show that account only.
  --days N        How many days ahead (1 to 366; default 30).
  --json          Print one JSON document: { "from", "to", "days", "accounts":
                  [ { "name", "declared", "openings": [ { "window", "opensAt",
                  "closesAt", "opensAtLocal", "opens", "closes", "timeZone",
                  "certificates" (patterns; null: all), "frozenBy" (null, or
                  the { "label", "reason" } of the freeze holding it) } ],
                  "freezes": [ { "label", "from", "to", "reason" } ],
                  "disabled": [ { "label", "certificates" } ], "warnings",
                  "marginMs", "jitterMs" } ] } (ISO-8601 UTC instants).
  -h, --help      Show this help.

Exit codes: 0 shown (also when nothing is declared); 2 usage or configuration
error (a declaration that does not load).
`;

/** --days's default: the month ahead an operator plans in. */
export const DEFAULT_DAYS = 30;
/** --days's most: a year, leap day included. */
export const MAX_DAYS = 366;

/** One account's calendar for the days asked, as the JSON document gives it. */
export interface AccountWindows {
  readonly name: string;
  /** Whether the account declares anything (windows, freezes or policies). */
  readonly declared: boolean;
  readonly openings: {
    readonly window: string;
    readonly opensAt: string;
    readonly closesAt: string;
    readonly opensAtLocal: string;
    /** `2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)`. */
    readonly opens: string;
    readonly closes: string;
    readonly timeZone: string;
    /** The window's certificate patterns; null: every certificate. */
    readonly certificates: readonly string[] | null;
    /** The freeze holding its start (nothing is renewed in it then); null: none. */
    readonly frozenBy: { readonly label: string; readonly reason: string } | null;
  }[];
  readonly freezes: { label: string; from: string; to: string; reason: string }[];
  readonly disabled: { label: string; certificates: readonly string[] }[];
  readonly warnings: readonly string[];
  readonly marginMs: number;
  readonly jitterMs: number;
}

function openingOf(o: UpcomingOpening): AccountWindows["openings"][number] {
  return {
    window: o.window,
    opensAt: o.opensAt.toISOString(),
    closesAt: o.closesAt.toISOString(),
    opensAtLocal: o.opensAtLocal,
    opens: openingText(o),
    closes: localAndUtc(o.closesAt, o.timeZone),
    timeZone: o.timeZone,
    certificates: o.certificates ? [...o.certificates] : null,
    frozenBy: o.frozenBy ? { label: o.frozenBy.label, reason: o.frozenBy.reason } : null,
  };
}

const freezeOf = (f: Freeze) => ({
  label: f.label,
  from: f.from.toISOString(),
  to: f.to.toISOString(),
  reason: f.reason,
});

/** One account's openings and freezes from `from` for `days` days. */
export function accountWindows(
  name: string,
  calendar: RenewalCalendar,
  from: Date,
  days: number,
): AccountWindows {
  const account = new AccountCalendar(calendar, name);
  const upcoming = account.restricted ? account.upcoming(from, days) : undefined;
  return {
    name,
    declared: account.restricted,
    openings: (upcoming?.openings ?? []).map(openingOf),
    freezes: (upcoming?.freezes ?? []).map(freezeOf),
    disabled: calendar.policies
      .filter((p) => p.policy === "disabled")
      .map((p) => ({ label: p.label, certificates: [...p.certificates] })),
    warnings: [...calendar.warnings],
    marginMs: calendar.marginMs,
    jitterMs: calendar.jitterMs,
  };
}

/** "3 days", "30 min", "2 h": a margin or a jitter, for people. */
export function durationText(ms: number): string {
  const units: [number, string][] = [
    [DAY_MS, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
  ];
  for (const [size, unit] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}${ms === size ? "" : "s"}`;
  }
  return `${Math.round(ms / 1000)} s`;
}

/** The part of one account for people: its openings table, freezes, policy and warnings. */
export function renderAccountWindows(a: AccountWindows, io: Io, many: boolean): string[] {
  const paint = palette(io.stdout, io.env);
  const width = io.stdout.columns;
  const wrap = (text: string, indent = "") => wrapToWidth(oneLine(text), width, indent, "    ");
  const lines: string[] = many ? [paint.bold(`Account ${a.name}`)] : [];
  if (!a.declared) {
    lines.push(
      ...wrap(
        "No renewal calendar declared: every due certificate is renewed whenever the sweep runs.",
      ),
    );
    return lines;
  }
  if (a.openings.length === 0) lines.push("No window opens in these days.");
  else lines.push(...openingsTable(a, io));
  for (const f of a.freezes) {
    lines.push(
      ...wrap(`Frozen ${minute(f.from)} to ${minute(f.to)} UTC: ${f.reason} (${f.label})`),
    );
  }
  for (const d of a.disabled) {
    lines.push(...wrap(`Disabled by policy (${d.label}): ${d.certificates.join(", ")}`));
  }
  lines.push(
    ...wrap(
      `A due certificate that would expire within ${durationText(a.marginMs)} of its next opening is renewed outside its windows; renewals start up to ${durationText(a.jitterMs)} into an opening.`,
    ),
  );
  for (const w of a.warnings) lines.push(...wrap(`warning: ${w}`).map((l) => paint.yellow(l)));
  return lines;
}

/** The openings, one a row; a FROZEN column when a freeze holds one (nothing renewed in it). */
function openingsTable(a: AccountWindows, io: Io): string[] {
  const paint = palette(io.stdout, io.env);
  const frozen = a.openings.some((o) => o.frozenBy !== null);
  return renderTable(
    [
      { heading: "OPENS" },
      { heading: "CLOSES" },
      { heading: "WINDOW", shrink: 3 },
      { heading: "CERTIFICATES", shrink: 2 },
      ...(frozen ? [{ heading: "FROZEN", shrink: 1 }] : []),
    ],
    a.openings.map((o) => [
      o.opens,
      o.closes,
      o.window,
      o.certificates?.join(", ") ?? "all",
      ...(frozen ? [o.frozenBy ? { text: o.frozenBy.reason, paint: paint.yellow } : "-"] : []),
    ]),
    { header: paint.bold, width: io.stdout.columns },
  );
}

const minute = (iso: string) => iso.slice(0, 16).replace("T", " ");

/** What the command reads: the clock, and the settings (the CLI's, unless a test gives its own). */
export interface WindowsSeams {
  readonly now: () => Date;
  readonly settings?: (io: Io) => Promise<Settings>;
}

/** The windows command with its clock and settings given (the tests give their own). */
export function windowsCommandWith(seams: WindowsSeams): Command {
  return {
    name: "windows",
    help: HELP,
    options: { ...JSON_OPTION, days: { type: "string" } },
    maxPositionals: 0,
    run: async (args, io) => {
      const days = integerFlag("windows", "--days", args.values.days, 1, MAX_DAYS) ?? DEFAULT_DAYS;
      // No service is needed: the settings alone (a declaration that does not load is exit 2).
      const settings = await (seams.settings ?? ((x: Io) => cliSettings(x, [])))(io);
      const names = selectAccounts(settings, requestedAccount(args), "windows", "each");
      const from = seams.now();
      const accounts = settings.accounts
        .filter((a) => names.includes(a.name))
        .map((a) => accountWindows(a.name, a.renewalCalendar, from, days));
      if (args.values.json === true) {
        const to = new Date(from.getTime() + days * DAY_MS).toISOString();
        const document = { from: from.toISOString(), to, days, accounts };
        io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
        return EXIT.ok;
      }
      const many = accounts.length > 1;
      const lines = [
        `Renewal calendar, the next ${days} days from ${minute(from.toISOString())} UTC`,
      ];
      for (const a of accounts) lines.push("", ...renderAccountWindows(a, io, many));
      io.stdout.write(`${lines.join("\n")}\n`);
      return EXIT.ok;
    },
  };
}

export const windowsCommand: Command = windowsCommandWith({ now: () => new Date() });
