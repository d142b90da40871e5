import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import { withRuntime } from "../runtime.js";

const HELP = `Usage: certsched test [--json]

Checks that certsched can reach the service with its configured credentials: obtains the
cloud access tokens and calls the service's connectivity test.

Options:
  --json       Print one JSON document: { "status": "ok", "service", "message" }.
  -h, --help   Show this help.

Exit codes: 0 connected; 1 the identity provider or the service refused or failed;
2 usage or configuration error.
`;

export const testCommand: Command = {
  name: "test",
  summary: "Check connectivity and credentials against the service",
  help: HELP,
  options: { ...JSON_OPTION },
  maxPositionals: 0,
  run: (args, io) =>
    withRuntime(io, async (runtime) => {
      const message = await runtime.client.test();
      const service = runtime.settings.baseUrl;
      if (args.values.json === true) {
        io.stdout.write(`${JSON.stringify({ status: "ok", service, message }, null, 2)}\n`);
      } else {
        io.stdout.write(`Connected to ${service}: ${message.trim() || "OK"}\n`);
      }
      return EXIT.ok;
    }),
};
