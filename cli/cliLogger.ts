import type { Logger } from "../shared/lib/log.js";
import type { Io } from "./io.js";
import { palette } from "./output/color.js";
import type { Progress } from "./output/progress.js";
import { oneLine, wrapToWidth } from "./output/text.js";

/**
 * The shared core's log lines, on stderr. Warnings always show (no ledger, a late run); info
 * and error lines repeat what the command prints itself (each result, the summary), so they
 * show only with --verbose, as the function app would log them.
 */
export function cliLogger(io: Io, options: { verbose: boolean; progress?: Progress }): Logger {
  const paint = palette(io.stderr, io.env);
  const write = (text: string) => {
    options.progress?.clear();
    io.stderr.write(`${text}\n`);
  };
  // A log line quotes upstream words and names: one line, escaped, so it cannot forge another.
  const line = (message: string) => wrapToWidth(oneLine(message), io.stderr.columns).join("\n");
  return {
    info: (message) => {
      if (options.verbose) write(paint.dim(line(message)));
    },
    warn: (message) => write(paint.yellow(line(message))),
    error: (message) => {
      if (options.verbose) write(paint.red(line(message)));
    },
  };
}
