import { readFile, stat } from "node:fs/promises";
import type { Seams } from "../../shared/app/seams.js";
import { ensureError, InputError, UsageError } from "../../shared/lib/errors.js";
import {
  handleVaultEvents,
  type VaultEventsRun,
} from "../../shared/usecases/vaultEvents/handleVaultEvents.js";
import { withServices } from "../accountPorts.js";
import { cliLogger } from "../cliLogger.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import type { Io } from "../io.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import type { ParsedArgs } from "../usage.js";

const HELP = `Usage: certsched events replay FILE [--json] [--verbose]

Hands Key Vault events to certsched as the keyVaultEvents function takes
them from Event Grid. FILE holds one event or a JSON array of them (Event
Grid schema or CloudEvents 1.0): a blob of the dead-letter container
eventgrid-deadletter, say. Each event is read, matched to the accounts that
watch its vault, confirmed with the vault and acted on once. An event
handled before is a duplicate and does nothing, so replaying is safe.

Prints one line per event: its id, kind, vault, certificate and version,
and what was done or why it was skipped.

Options:
  --json          One JSON document: { "received", "outcomes": [ { "id",
                  "outcome", "line" } ], "failed" }.
  --verbose       Also the log lines of the checks (on stderr).
  -h, --help      Show this help.

Exit codes: 0 every event handled or skipped; 1 an event failed again (the
vault or storage could not be reached: replay it later); 2 usage,
configuration, or a file that cannot be read.
`;

/** The largest file replayed: a dead-letter blob holds one event of at most 1 MB. */
export const MAX_REPLAY_BYTES = 16 * 1024 * 1024;

/** The file's text; an InputError (exit 2) names the file when it cannot be read or is too large. */
export async function readReplayFile(path: string): Promise<string> {
  try {
    const size = (await stat(path)).size;
    if (size > MAX_REPLAY_BYTES) {
      throw new InputError(
        `the events file ${oneLine(path)} is ${size} bytes: at most ${MAX_REPLAY_BYTES} are read`,
      );
    }
    return await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "not found" : ensureError(error).message;
    throw new InputError(`cannot read the events file ${oneLine(path)}: ${reason}`);
  }
}

/** The file's JSON; an InputError (exit 2) says where it is not JSON. */
export function parseReplay(path: string, text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new InputError(
      `the events file ${oneLine(path)} is not JSON: ${oneLine(ensureError(error).message).slice(0, 200)}`,
    );
  }
}

/** The file named by `events replay FILE`, or a usage error. */
function replayPath(args: ParsedArgs): string {
  const [sub, path] = args.positionals;
  if (sub !== "replay") {
    const said = sub === undefined ? "a subcommand" : `"${oneLine(sub)}"`;
    throw new UsageError(`events needs replay FILE, not ${said}`, "events");
  }
  if (path === undefined) throw new UsageError("events replay needs the events FILE", "events");
  return path;
}

function write(io: Io, run: VaultEventsRun, json: boolean): void {
  if (json) {
    io.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
    return;
  }
  const lines = run.outcomes.flatMap((o) => wrapToWidth(oneLine(o.line), io.stdout.columns));
  const failed = run.failed.length > 0 ? `, ${run.failed.length} failed` : "";
  lines.push(`${run.received} received, ${run.outcomes.length} with an outcome${failed}.`);
  io.stdout.write(`${lines.join("\n")}\n`);
}

/** `certsched events` with the stores `seams` give (tests); eventsCommand is the built CLI's. */
export function eventsCommandWith(seams: Seams = {}): Command {
  return {
    name: "events",
    help: HELP,
    options: { ...JSON_OPTION, verbose: { type: "boolean" } },
    maxPositionals: 2,
    run: async (args, io) => {
      const path = replayPath(args);
      const delivery = parseReplay(path, await readReplayFile(path));
      const log = cliLogger(io, { verbose: args.values.verbose === true });
      const choice = { args, command: "events", scope: "each" as const };
      const run = await withServices(io, [], seams, choice, (cli) =>
        handleVaultEvents(cli.services, delivery, log),
      );
      write(io, run, args.values.json === true);
      for (const failure of run.failed) io.stderr.write(`certsched: ${oneLine(failure)}\n`);
      return run.failed.length > 0 ? EXIT.failed : EXIT.ok;
    },
  };
}

export const eventsCommand: Command = eventsCommandWith();
