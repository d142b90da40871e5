import type { AccountPorts } from "../../shared/app/services.js";
import { certificateView } from "../../shared/core/certificate/certificateView.js";
import { recordWarnings } from "../../shared/core/certificate/recordWarnings.js";
import { noLedger } from "../../shared/core/ports/ledger.js";
import { windowOf } from "../../shared/core/status/windowView.js";
import { withServices } from "../accountPorts.js";
import { accountsEntries, withAccount } from "../accounts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT, reportAccountFailure } from "../failure.js";
import { palette } from "../output/color.js";
import { formatExpiry } from "../output/expiry.js";
import { daysPaint } from "../output/sweepReport.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { calendarOf, windowCell } from "../output/window.js";

const HELP = `Usage: certsched due [--account NAME] [--json]

Lists the certificates the service reports as due for renewal (expiring within
20 days), soonest first, with the days left. Renews nothing. Every account's
(with an ACCOUNT column when there are several), or --account NAME's only.

Options:
  --json       Print one JSON document: { "certificates": [ records with
               "account", ISO-8601 UTC issueDate/expiryDate and daysLeft ] }
               (plus "rejected" for invalid records; with several accounts,
               "accounts": [ { "name", "failed", "problems" } ]).
               With a renewal calendar declared (docs/renewal-windows.md),
               each record has "window": null or { "state" (open, waiting,
               outside, disabled), "text", "window", "opensAt", "closesAt",
               "opensAtLocal", "opens", "timeZone", "frozen", "mustRenewBy",
               "because", "policy" }.
  -h, --help   Show this help.

With a renewal calendar declared, a WINDOW column says when each one is
renewed: "open until ...", "waiting: opens 2026-12-08 09:00 Europe/Berlin
(2026-12-08 08:00 UTC)", "renewed outside its renewal windows: ..." (its
expiry or the CA's ARI window comes first), "disabled (policy ...)".
certsched windows lists the openings and freezes ahead.

Exit codes: 0 listed (also when nothing is due); 1 a list failed (any
account's: the others are still listed) or returned invalid records; 2 usage
or configuration error.
`;

/** One account's due list, its views sorted by expiry. */
async function dueOf(runtime: AccountPorts) {
  const { certificates, rejected } = await runtime.client.listDue();
  const now = runtime.now();
  const calendar = calendarOf(runtime.settings, runtime.account);
  const views = certificates.map((c) => ({
    ...certificateView(c, now),
    ...windowOf(calendar, c.certificateName, {
      now,
      expiry: c.expiryDate,
      nextTick: runtime.renewalTimer,
    }),
  }));
  return { certificates, views, rejected, windows: calendar !== undefined };
}

export const dueCommand: Command = {
  name: "due",
  help: HELP,
  options: { ...JSON_OPTION },
  maxPositionals: 0,
  run: (args, io) =>
    withServices(
      io,
      ["subscriptionId"],
      { ledger: noLedger },
      { args, command: "due", scope: "each" },
      async (cli) => {
        const outcomes = await cli.each((runtime) => dueOf(runtime));
        // One account: its failure is reported as every command's (exit 1, cause, where to look).
        if (!cli.many && outcomes[0] && !outcomes[0].ok) throw outcomes[0].error;
        const listed = outcomes.flatMap((o) => (o.ok ? [{ account: o.account, ...o.value }] : []));
        const views = listed
          .flatMap((l) => l.views.map((v) => withAccount(l.account, v)))
          .sort((a, b) => a.expiryDate.localeCompare(b.expiryDate));
        const rejected = listed.flatMap((l) => l.rejected.map((r) => ({ account: l.account, r })));
        const failures = outcomes.flatMap((o) =>
          o.ok
            ? []
            : [{ account: o.account, ...reportAccountFailure(o.error, io, o.account, "due") }],
        );
        if (args.values.json === true) {
          const document = {
            certificates: views,
            ...(rejected.length > 0
              ? { rejected: rejected.map(({ account, r }) => withAccount(account, r)) }
              : {}),
            ...(cli.many ? { accounts: accountsEntries(outcomes, failures) } : {}),
          };
          io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
        } else {
          const paint = palette(io.stdout, io.env);
          const windows = listed.some((l) => l.windows);
          const lines =
            views.length === 0
              ? ["Nothing is due for renewal."]
              : renderTable(
                  [
                    ...(cli.many ? [{ heading: "ACCOUNT" }] : []),
                    { heading: "CERTIFICATE", shrink: 1 },
                    { heading: "TARGET", shrink: 2 },
                    { heading: "CHALLENGE" },
                    { heading: "EXPIRES (UTC)" },
                    { heading: "DOMAIN", shrink: 3 },
                    ...(windows ? [{ heading: "WINDOW", shrink: 4 }] : []),
                  ],
                  views.map((v) => [
                    ...(cli.many ? [v.account] : []),
                    v.certificateName,
                    v.target,
                    v.challengeType ?? "-",
                    {
                      text: formatExpiry(v.expiryDate, v.daysLeft),
                      paint: daysPaint(v.daysLeft, paint),
                    },
                    v.rootDomain ?? "-",
                    ...(windows ? [windowCell(v.window, paint)] : []),
                  ]),
                  { header: paint.bold, width: io.stdout.columns },
                );
          io.stdout.write(`${lines.join("\n")}\n`);
        }
        for (const { account, r } of rejected) {
          const problems = r.problems.map((p) => `${p.name} ${p.message}`).join("; ");
          const where = cli.many ? `account ${account}: ` : "";
          const text = `certsched: ${where}record ${r.index} of the list (${r.certificateName ?? "unnamed"}) is invalid: ${problems}`;
          io.stderr.write(`${wrapToWidth(oneLine(text), io.stderr.columns, "").join("\n")}\n`);
        }
        // Fields kept but not read, in a type spec 2.3 does not document: said, never fatal.
        for (const warning of recordWarnings(listed.flatMap((l) => l.certificates))) {
          io.stderr.write(
            `${wrapToWidth(oneLine(`certsched: ${warning}`), io.stderr.columns, "").join("\n")}\n`,
          );
        }
        return rejected.length > 0 || failures.length > 0 ? EXIT.failed : EXIT.ok;
      },
    ),
};
