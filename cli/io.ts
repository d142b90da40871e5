import { redact } from "../shared/redact.js";
import type { Env } from "../shared/settings.js";

/** Where the CLI writes: a terminal, a pipe, or a test's buffer. */
export interface OutputStream {
  write(text: string): void;
  /** True on a terminal: progress lines and colour are for people, never for pipes. */
  readonly isTTY: boolean;
  /** Terminal width in characters; undefined when not a terminal. */
  readonly columns: number | undefined;
}

/** Everything a command touches outside itself, so it runs the same in a test as in a shell. */
export interface Io {
  readonly env: Env;
  /** Directory that holds local.settings.json, if any. */
  readonly cwd: string;
  /** The command's result: a table for people or one JSON document. */
  readonly stdout: OutputStream;
  /** Diagnostics, warnings, the progress line. */
  readonly stderr: OutputStream;
  /** Resolves with the signal's name on SIGINT or SIGTERM (the sandbox runs until then). */
  untilInterrupted(): Promise<string>;
}

function stream(target: NodeJS.WriteStream): OutputStream {
  // `certsched due | head` closes the pipe early; that is not an error worth a stack trace.
  target.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
  return {
    // Last line of defence: every registered secret and anything token-shaped is masked.
    write: (text) => {
      target.write(redact(text));
    },
    get isTTY() {
      return target.isTTY === true;
    },
    get columns() {
      return target.isTTY ? target.columns : undefined;
    },
  };
}

/** The real process: its environment, working directory, streams and signals. */
export function processIo(): Io {
  return {
    env: process.env,
    cwd: process.cwd(),
    stdout: stream(process.stdout),
    stderr: stream(process.stderr),
    untilInterrupted: () =>
      new Promise((resolve) => {
        const on = (signal: NodeJS.Signals) => {
          process.off("SIGINT", on);
          process.off("SIGTERM", on);
          resolve(signal);
        };
        process.on("SIGINT", on);
        process.on("SIGTERM", on);
      }),
  };
}
