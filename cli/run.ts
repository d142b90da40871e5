import type { Command } from "./command.js";
import { createCommand } from "./commands/create.js";
import { dueCommand } from "./commands/due.js";
import { renewCommand } from "./commands/renew.js";
import { sandboxCommand } from "./commands/sandbox.js";
import { sweepCommand } from "./commands/sweep.js";
import { testCommand } from "./commands/test.js";
import { EXIT, reportFailure } from "./failure.js";
import type { Io } from "./io.js";
import { parseCommandArgs, UsageError } from "./usage.js";

export const COMMANDS: readonly Command[] = [
  sweepCommand,
  dueCommand,
  createCommand,
  renewCommand,
  testCommand,
  sandboxCommand,
];

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Usage: certsched <command> [options]

Keeps TLS certificates alive through the Certificate Scheduling Service: the same work as the
function app, run by hand.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n")}

Run "certsched <command> --help" for a command's options.

Configuration: each CERTSCHED_* setting is read from the environment, else from the "Values"
of local.settings.json in the working directory (the file "func start" reads).

Exit codes: 0 success (also when nothing is due); 1 an operation failed; 2 usage or
configuration error. Diagnostics go to stderr; with --json, stdout holds one JSON document.
`;
}

const HELP_FLAGS = new Set(["--help", "-h", "help"]);

/** Runs one command line and returns its exit code; never throws. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const [first, ...rest] = argv;
  const wantsJson = rest.includes("--json");
  if (first === undefined) {
    io.stderr.write(topHelp());
    return EXIT.usage;
  }
  if (HELP_FLAGS.has(first)) {
    const topic = first === "help" ? rest[0] : undefined;
    const command = COMMANDS.find((c) => c.name === topic);
    if (topic !== undefined && !command) {
      return reportFailure(new UsageError(`unknown command "${topic}"`), io, { json: false });
    }
    io.stdout.write(command ? command.help : topHelp());
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) {
    const known = COMMANDS.map((c) => c.name).join(", ");
    const error = new UsageError(`unknown command "${first}" (commands: ${known})`);
    return reportFailure(error, io, { json: wantsJson });
  }
  let json = wantsJson;
  try {
    const args = parseCommandArgs(
      command.name,
      rest,
      { ...command.options, help: { type: "boolean", short: "h" } },
      command.maxPositionals,
    );
    if (args.values.help === true) {
      io.stdout.write(command.help);
      return EXIT.ok;
    }
    json = args.values.json === true;
    return await command.run(args, io);
  } catch (error) {
    return reportFailure(error, io, { json, command: command.name });
  }
}
