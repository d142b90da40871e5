import type { Env } from "../shared/core/settings.js";
import { redact } from "../shared/lib/redact/redact.js";

/** Where the CLI writes: a terminal, a pipe, or a test's buffer. */
export interface OutputStream {
  write(text: string): void;
  /** True on a terminal: progress lines and colour are for people, never for pipes. */
  readonly isTTY: boolean;
  /** Terminal width in characters; undefined when not a terminal. */
  readonly columns: number | undefined;
}

/** A stream that drops everything: settings read a second time, warnings already given. */
export const SILENT: OutputStream = { write: () => {}, isTTY: false, columns: undefined };

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

/**
 * The CLI's own control sequences: the palette's colours (cli/output/color.ts) and the
 * progress line's erase (cli/output/progress.ts). Nothing else passes raw.
 */
const OURS_OR_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /(\r\u001b\[2K|\u001b\[(?:1|2|22|31|32|33|36|39)m)|([\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069])/g;

/**
 * `\u0085`: a JSON escape, so a --json document stays valid and means the same text
 * (JSON.stringify leaves DEL, C1 controls and U+2028/2029 raw), and readable anywhere else.
 */
function jsonEscape(ch: string): string {
  return `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
}

/**
 * What reaches the terminal: secrets masked, then every control character escaped but newlines
 * and our own colour and erase sequences. Upstream text is escaped where it is composed (it
 * cannot even forge a colour); this is the last line of defence for whatever was missed, so an
 * escape sequence from elsewhere can never set a window title, clear the screen or plant a link.
 */
export function terminalSafe(text: string): string {
  return redact(text).replace(OURS_OR_CONTROL, (match, ours: string | undefined) =>
    ours === undefined ? jsonEscape(match) : ours,
  );
}

function stream(target: NodeJS.WriteStream): OutputStream {
  // `certsched due | head` closes the pipe early; that is not an error worth a stack trace.
  target.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
  return {
    write: (text) => {
      target.write(terminalSafe(text));
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
