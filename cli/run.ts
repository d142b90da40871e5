import { closest, distance } from "fastest-levenshtein";
import { UsageError } from "../shared/lib/errors.js";
import { COMMON_OPTIONS } from "./command.js";
import type { CommandEntry } from "./commandList.js";
import { EXIT } from "./exit.js";
import type { Io, OutputStream } from "./io.js";
import { COMMANDS } from "./registry.js";
import { parseCommandArgs } from "./usage.js";
import { packageVersion } from "./version.js";

function topHelp(): string {
  let width = 0;
  for (const c of COMMANDS) width = Math.max(width, c.name.length);
  return `Usage: certsched <command> [options]

Keeps TLS certificates alive through the Certificate Scheduling Service: the
same work as the function app, run by hand.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n")}

Options:
  -h, --help     Show this help; "certsched <command> --help" for a command's.
  -v, --version  Print certsched's version.
  --account NAME After a command: act on that account only (certsched accounts
                 lists them). sweep, due, verify, preflight, status, test,
                 history and runs act on every account without it; create,
                 renew and get need it when more than one account is declared.

Configuration: each CERTSCHED_* setting is read from the environment, else from
the "Values" of local.settings.json in the working directory (the file that
"func start" reads). Unknown CERTSCHED_* names are warned about.

Exit codes: 0 success (also when nothing is due); 1 an operation failed; 2 usage
or configuration error. Diagnostics go to stderr; with --json, stdout holds one
JSON document.
`;
}

const HELP_FLAGS = new Set(["--help", "-h", "help"]);
const VERSION_FLAGS = new Set(["--version", "-v", "-V"]);

/** Help is written for 80 columns; a narrower terminal gets it wrapped, not cut. */
async function writeHelp(stream: OutputStream, text: string): Promise<void> {
  if (stream.columns === undefined || stream.columns >= 80) {
    stream.write(text);
    return;
  }
  const { wrapToWidth } = await import("./output/text.js");
  stream.write(`${wrapToWidth(text.replace(/\n$/, ""), stream.columns).join("\n")}\n`);
}

/** The failure report lives with the heavy modules: loaded only when something failed. */
async function fail(
  error: unknown,
  io: Io,
  options: { readonly json: boolean; readonly command?: string },
): Promise<number> {
  const { reportFailure } = await import("./failure.js");
  return reportFailure(error, io, options);
}

/** `unknown command "swep": did you mean "sweep"?`, when one is close enough to be meant. */
function unknownCommand(name: string): UsageError {
  const names = COMMANDS.map((c) => c.name);
  const guess = closest(name, names);
  const near = distance(name, guess) <= Math.max(2, Math.floor(guess.length / 3));
  const hint = near ? `: did you mean "${guess}"?` : ` (commands: ${names.join(", ")})`;
  return new UsageError(`unknown command "${name}"${hint}`);
}

function find(name: string | undefined): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** Runs one command line and returns its exit code; never throws. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const [first, ...rest] = argv;
  const wantsJson = rest.includes("--json");
  if (first === undefined) {
    await writeHelp(io.stderr, topHelp());
    return EXIT.usage;
  }
  if (VERSION_FLAGS.has(first)) {
    io.stdout.write(`certsched ${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (HELP_FLAGS.has(first)) {
    const topic = first === "help" ? rest[0] : undefined;
    const entry = find(topic);
    if (topic !== undefined && !entry) return fail(unknownCommand(topic), io, { json: false });
    await writeHelp(io.stdout, entry ? (await entry.load()).help : topHelp());
    return EXIT.ok;
  }
  const entry = find(first);
  if (!entry) return fail(unknownCommand(first), io, { json: wantsJson });
  let json = wantsJson;
  try {
    const command = await entry.load();
    const args = parseCommandArgs(
      command.name,
      rest,
      { ...command.options, ...COMMON_OPTIONS, help: { type: "boolean", short: "h" } },
      command.maxPositionals,
    );
    if (args.values.help === true) {
      await writeHelp(io.stdout, command.help);
      return EXIT.ok;
    }
    json = args.values.json === true;
    return await command.run(args, io);
  } catch (error) {
    return fail(error, io, { json, command: entry.name });
  }
}
