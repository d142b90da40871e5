import type { Io } from "./io.js";
import type { OptionSpec, ParsedArgs } from "./usage.js";

/** One subcommand: its flags, its help, and what it does. */
export interface Command {
  readonly name: string;
  /** The full `certsched <name> --help` text. */
  readonly help: string;
  /** Flags besides --help and --account, which every command has (COMMON_OPTIONS). */
  readonly options: OptionSpec;
  /** How many positional arguments it takes. */
  readonly maxPositionals: number;
  /** Returns the exit code; throws for failures reportFailure maps (usage, config, upstream). */
  run(args: ParsedArgs, io: Io): Promise<number>;
}

/** The --json flag, shared so it reads the same everywhere. */
export const JSON_OPTION = { json: { type: "boolean" } } as const satisfies OptionSpec;

/**
 * The flags every command takes, parsed in one place (cli/run.ts): --account NAME, the account
 * a command acts on; each command checks the name against the declared accounts.
 */
export const COMMON_OPTIONS = { account: { type: "string" } } as const satisfies OptionSpec;
