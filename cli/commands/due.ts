import { certificateView } from "../../shared/core/certificate/certificateView.js";
import { recordWarnings } from "../../shared/core/certificate/recordWarnings.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import { palette } from "../output/color.js";
import { formatExpiry } from "../output/expiry.js";
import { daysPaint } from "../output/sweepReport.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { withRuntime } from "../runtime.js";

const HELP = `Usage: certsched due [--json]

Lists the certificates the service reports as due for renewal (expiring within
20 days), soonest first, with the days left. Renews nothing.

Options:
  --json       Print one JSON document: { "certificates": [ records with
               ISO-8601 UTC issueDate/expiryDate and daysLeft ] } (plus
               "rejected" for invalid records).
  -h, --help   Show this help.

Exit codes: 0 listed (also when nothing is due); 1 the list failed or returned
invalid records; 2 usage or configuration error.
`;

export const dueCommand: Command = {
  name: "due",
  help: HELP,
  options: { ...JSON_OPTION },
  maxPositionals: 0,
  run: (args, io) =>
    withRuntime(io, ["subscriptionId"], async (runtime) => {
      const { certificates, rejected } = await runtime.client.listDue();
      const now = runtime.now();
      const views = certificates
        .map((c) => certificateView(c, now))
        .sort((a, b) => a.expiryDate.localeCompare(b.expiryDate));
      if (args.values.json === true) {
        const document = { certificates: views, ...(rejected.length > 0 ? { rejected } : {}) };
        io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      } else {
        const paint = palette(io.stdout, io.env);
        const lines =
          views.length === 0
            ? ["Nothing is due for renewal."]
            : renderTable(
                [
                  { heading: "CERTIFICATE", shrink: 1 },
                  { heading: "TARGET", shrink: 2 },
                  { heading: "CHALLENGE" },
                  { heading: "EXPIRES (UTC)" },
                  { heading: "DOMAIN", shrink: 3 },
                ],
                views.map((v) => [
                  v.certificateName,
                  v.target,
                  v.challengeType ?? "-",
                  {
                    text: formatExpiry(v.expiryDate, v.daysLeft),
                    paint: daysPaint(v.daysLeft, paint),
                  },
                  v.rootDomain ?? "-",
                ]),
                { header: paint.bold, width: io.stdout.columns },
              );
        io.stdout.write(`${lines.join("\n")}\n`);
      }
      for (const r of rejected) {
        const problems = r.problems.map((p) => `${p.name} ${p.message}`).join("; ");
        const text = `certsched: record ${r.index} of the list (${r.certificateName ?? "unnamed"}) is invalid: ${problems}`;
        io.stderr.write(`${wrapToWidth(oneLine(text), io.stderr.columns, "").join("\n")}\n`);
      }
      // Fields kept but not read, in a type spec 2.3 does not document: said, never fatal.
      for (const warning of recordWarnings(certificates)) {
        io.stderr.write(
          `${wrapToWidth(oneLine(`certsched: ${warning}`), io.stderr.columns, "").join("\n")}\n`,
        );
      }
      return rejected.length > 0 ? EXIT.failed : EXIT.ok;
    }),
};
