import type { Logger } from "../shared/log.js";
import type { Io } from "./io.js";
import { palette } from "./output/color.js";
import type { Progress } from "./output/progress.js";

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
  return {
    info: (message) => {
      if (options.verbose) write(paint.dim(message));
    },
    warn: (message) => write(paint.yellow(message)),
    error: (message) => {
      if (options.verbose) write(paint.red(message));
    },
  };
}
