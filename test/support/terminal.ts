import { spawn } from "node:child_process";
import { CLI, ROOT } from "./cliBuild.js";

/** What a person sees in a terminal: stdout and stderr interleaved, as the terminal shows them. */
export interface TerminalResult {
  readonly code: number | null;
  /** Everything written to the terminal, raw: colour codes and carriage returns included. */
  readonly raw: string;
}

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * `certsched <args>` in a real pseudo-terminal of `columns` columns (util-linux `script`), so
 * the CLI sees a TTY: colour on (unless NO_COLOR), progress line, the terminal's width.
 * `script -e` exits with the child's code.
 */
export function runInTerminal(
  args: readonly string[],
  options: { columns: number; env?: Record<string, string>; cwd?: string },
): Promise<TerminalResult> {
  const command = `stty cols ${options.columns} rows 50; exec ${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(" ")}`;
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/script", ["-qec", command, "/dev/null"], {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? "", TERM: "xterm-256color", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let raw = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      raw += chunk;
    });
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, raw }));
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping terminal sequences is the point.
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/**
 * The lines as they end up on the screen: colour codes removed, CRLF read as a line break, and
 * of a line a progress line overwrote (\r) each part counted, since each was on screen once.
 */
export function screenLines(raw: string): string[] {
  return raw
    .replace(ANSI, "")
    .replace(/\r\n/g, "\n")
    .split("\n")
    .flatMap((line) => line.split("\r"));
}

/** The text with line breaks and indentation folded into single spaces: wrapped text re-joined. */
export function unwrapped(text: string): string {
  return text
    .replace(ANSI, "")
    .replace(/\r/g, "")
    .replace(/\s*\n\s*/g, " ");
}
