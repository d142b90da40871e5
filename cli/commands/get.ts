import {
  type CertificateView,
  certificateView,
} from "../../shared/core/certificate/certificateView.js";
import { ConfigError, UsageError } from "../../shared/lib/errors.js";
import { declaredAccount, withLedgerlessPorts } from "../accountPorts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import { palette } from "../output/color.js";
import { formatExpiry } from "../output/expiry.js";
import { daysPaint } from "../output/sweepReport.js";
import { oneLine } from "../output/text.js";

const HELP = `Usage: certsched get <certificateName> [--account NAME] [--json]

Shows one certificate as the service holds it (Get Certificate): target,
renewal, domain, key vault and expiry, whether or not it is due. Never its
password, PFX or private-key links.

Options:
  --account NAME  The account that holds it (certsched accounts); required
               when more than one account is declared.
  --json       Print one JSON document: the certificate, with ISO-8601 UTC
               issueDate/expiryDate and daysLeft (as "certsched due --json").
  -h, --help   Show this help.

Exit codes: 0 found; 1 the service refused or failed (an unknown name, say);
2 usage or configuration error.
`;

/** The lines a person reads, in the order they are asked about. */
function describe(view: CertificateView): [string, string][] {
  const links =
    typeof view.certificateDownloadUrl === "object" && view.certificateDownloadUrl !== null
      ? Object.entries(view.certificateDownloadUrl).map(([name, url]) => `${name} ${url}`)
      : view.certificateDownloadUrl === null
        ? []
        : [view.certificateDownloadUrl];
  const rows: [string, string | null][] = [
    ["Target", view.target],
    ["Renewal", view.renewal],
    ["Domain", view.rootDomain],
    ["Challenge", view.challengeType],
    ["Key vault", view.keyVaultName],
    ["Vault certificate", view.keyVaultCertificateName],
    ["Issued (UTC)", view.issueDate],
    ["Id", String(view.id)],
    ["Downloads", links.length > 0 ? links.join(", ") : null],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== null && row[1] !== "");
}

export const getCommand: Command = {
  name: "get",
  help: HELP,
  options: { ...JSON_OPTION },
  maxPositionals: 1,
  run: async (args, io) => {
    const name = args.positionals[0];
    if (!name?.trim()) throw new UsageError("the certificate name is required", "get");
    return withLedgerlessPorts(
      io,
      ["subscription", "apiKey"],
      { args, command: "get" },
      async (runtime) => {
        // Get Certificate is a v3 operation: the API key as Bearer, no cloud token.
        if (runtime.secrets.describe().apiKey === "missing") {
          throw new ConfigError([
            {
              name: "CERTSCHED_API_KEY",
              message:
                "is required for get unless CERTSCHED_KEY_VAULT_URL names the vault that holds it",
            },
          ]);
        }
        const view = certificateView(await runtime.client.get(name), runtime.now());
        if (args.values.json === true) {
          const document = { ...declaredAccount(runtime), ...view };
          io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
          return EXIT.ok;
        }
        const paint = palette(io.stdout, io.env);
        const expiry = formatExpiry(view.expiryDate, view.daysLeft);
        const lines = [
          paint.bold(oneLine(view.certificateName)),
          `  ${paint.bold("Expires (UTC)".padEnd(18))}${daysPaint(view.daysLeft, paint)?.(expiry) ?? expiry}`,
          ...describe(view).map(
            ([label, value]) => `  ${paint.bold(label.padEnd(18))}${oneLine(value)}`,
          ),
        ];
        io.stdout.write(`${lines.join("\n")}\n`);
        return EXIT.ok;
      },
    );
  },
};
