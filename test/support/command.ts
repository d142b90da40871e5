import { COMMON_OPTIONS, type Command } from "../../cli/command.js";
import { reportFailure } from "../../cli/failure.js";
import type { Io, OutputStream } from "../../cli/io.js";
import { parseCommandArgs } from "../../cli/usage.js";

/** What one command printed and its exit code. */
export interface CommandRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function capture(): OutputStream & { text: string } {
  const stream = {
    text: "",
    isTTY: false,
    columns: undefined,
    write(chunk: string) {
      stream.text += chunk;
    },
  };
  return stream;
}

/**
 * `certsched <name> <argv>` in this process, as cli/run.ts runs a command: its options and the
 * common ones parsed, a failure reported (and its exit code given) the same way.
 */
export async function runCommand(
  command: Command,
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<CommandRun> {
  const stdout = capture();
  const stderr = capture();
  const io: Io = {
    env: { NO_COLOR: "1", ...env },
    cwd: "/nonexistent-certsched-test-dir",
    stdout,
    stderr,
    untilInterrupted: () => new Promise(() => {}),
  };
  let code: number;
  try {
    const options = { ...command.options, ...COMMON_OPTIONS };
    const args = parseCommandArgs(command.name, argv, options, command.maxPositionals);
    code = await command.run(args, io);
  } catch (error) {
    code = reportFailure(error, io, { json: argv.includes("--json"), command: command.name });
  }
  return { code, stdout: stdout.text, stderr: stderr.text };
}
