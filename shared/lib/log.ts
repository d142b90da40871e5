/** Where certsched's log lines go: an InvocationContext in the host, stderr in the CLI. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that drops everything (benchmarks). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
