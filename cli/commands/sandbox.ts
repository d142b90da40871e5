import type { Command } from "../command.js";
import { CliFailure, EXIT } from "../failure.js";
import { palette } from "../output/color.js";
import { wrapToWidth } from "../output/text.js";
import { startSandbox } from "../sandbox.js";
import { integerFlag } from "../usage.js";

const HELP = `Usage: certsched sandbox [--port N]

Starts the built-in simulator of the Certificate Scheduling Service (and of the
identity provider's token endpoint), seeded with a dozen sample certificates,
and prints the settings that point certsched at it, one NAME=value per line on
stdout. Runs until interrupted (Ctrl+C, SIGINT or SIGTERM).

The printed credentials are the simulator's own throwaway values, not secrets
of any account. Use them from another shell, for example:
  env CERTSCHED_BASE_URL=... CERTSCHED_...=... certsched due
or put them in the "Values" of local.settings.json to run the function app
against it.

Options:
  --port N     Port to listen on (default: a free one).
  -h, --help   Show this help.

Exit codes: 0 stopped by a signal; 1 the simulator could not start (the port is
in use, say); 2 usage error.
`;

/** Why the simulator could not listen, in words: "port 8080 is already in use", not a stack. */
function listenFailure(error: unknown, port: number | undefined): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "EADDRINUSE") {
    return new CliFailure(
      "PORT_IN_USE",
      `port ${port} is already in use: stop what listens there, choose another --port, or leave --port out for a free one`,
    );
  }
  if (code === "EACCES") {
    return new CliFailure(
      "PORT_NOT_ALLOWED",
      `port ${port} needs privileges this user lacks: choose a port above 1023`,
    );
  }
  return error;
}

export const sandboxCommand: Command = {
  name: "sandbox",
  help: HELP,
  options: { port: { type: "string" } },
  maxPositionals: 0,
  run: async (args, io) => {
    const port = integerFlag("sandbox", "--port", args.values.port, 0, 65535);
    const sandbox = await startSandbox(port === undefined ? {} : { port }).catch(
      (error: unknown) => {
        throw listenFailure(error, port);
      },
    );
    const paint = palette(io.stderr, io.env);
    const banner = [
      paint.bold("=== certsched SANDBOX ==="),
      `A simulator of the Certificate Scheduling Service is listening on ${sandbox.sim.baseUrl} with ${sandbox.sim.certificates().length} sample certificates. No real account is involved.`,
      "These settings point certsched at it (the simulator's own throwaway credentials):",
      "",
    ].flatMap((line) => wrapToWidth(line, io.stderr.columns ?? 80));
    io.stderr.write(banner.join("\n"));
    const settings = Object.entries(sandbox.settings).map(([name, value]) => `${name}=${value}`);
    io.stdout.write(`${settings.join("\n")}\n`);
    io.stderr.write("\nPress Ctrl+C to stop.\n");
    const signal = await io.untilInterrupted();
    await sandbox.close();
    io.stderr.write(`certsched sandbox stopped (${signal}).\n`);
    return EXIT.ok;
  },
};
