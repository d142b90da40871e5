import { renewByName } from "../../shared/service/renewByName.js";
import { cliLogger } from "../cliLogger.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import { oneLine } from "../output/text.js";
import { withRuntime } from "../runtime.js";
import { UsageError } from "../usage.js";
import { requireApiKey } from "./create.js";

const HELP = `Usage: certsched renew <certificateName> [--json]

Schedules the renewal of one certificate by name (v3 renew), whether or not it
is due. The renewal completes within an hour; "certsched due" shows when it has.

Options:
  --json       Print one JSON document: { "status", "certificateName",
               "message" }.
  -h, --help   Show this help.

Exit codes: 0 renewal scheduled; 1 the service refused or failed (an unknown
name, say); 2 usage or configuration error.
`;

export const renewCommand: Command = {
  name: "renew",
  help: HELP,
  options: { ...JSON_OPTION },
  maxPositionals: 1,
  run: async (args, io) => {
    const name = args.positionals[0];
    if (!name?.trim()) throw new UsageError("the certificate name is required", "renew");
    return withRuntime(io, ["subscription", "apiKey"], async (runtime) => {
      requireApiKey(runtime);
      // Get Certificate first: a key-vault certificate's renewal then carries the vault token.
      const log = cliLogger(io, { verbose: false });
      const { message } = await renewByName(runtime.client, name, log);
      if (args.values.json === true) {
        const document = { status: "scheduled", certificateName: name, message };
        io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      } else {
        io.stdout.write(`Renewal of ${oneLine(name)} scheduled: ${oneLine(message.trim())}\n`);
      }
      return EXIT.ok;
    });
  },
};
