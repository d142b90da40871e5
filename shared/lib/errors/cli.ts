import { CertschedError } from "./family.js";
import type { Problem } from "./input.js";

/** The command line itself is wrong (unknown command or flag, bad value): exit code 2. */
export class UsageError extends CertschedError {
  /** The command whose help would have helped; undefined for the top level. */
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super("USAGE", message);
    this.name = "UsageError";
    this.command = command;
  }
}

/** A file named on the command line is missing, unreadable or invalid; nothing was sent. */
export class InputError extends CertschedError {
  readonly problems: readonly Problem[];

  constructor(message: string, problems: readonly Problem[] = []) {
    super("INPUT_INVALID", message);
    this.name = "InputError";
    this.problems = problems;
  }
}

/**
 * Something the CLI itself could not do, outside the service (the sandbox's port is taken, say):
 * its own stable code, and the exit code it means (cli/exit.ts EXIT).
 */
export class CliFailure extends CertschedError {
  declare readonly code: "PORT_IN_USE" | "PORT_NOT_ALLOWED";
  readonly exitCode: number;

  constructor(code: CliFailure["code"], message: string, exitCode: number) {
    super(code, message);
    this.name = "CliFailure";
    this.exitCode = exitCode;
  }
}
