import type { InvocationContext } from "@azure/functions";
import { escapeControl } from "../escapeControl.js";
import type { Logger } from "../log.js";
import { redact } from "../redact.js";

/**
 * The invocation's log: the one place the function app writes a log line, so every line is
 * redacted (a last line of defence against secrets) and then has its control characters made
 * visible. Lines carry text from elsewhere (a route name, a certificate name, an upstream's error
 * body); a raw newline there could forge a `certsched sweep summary` line in the function log,
 * and ESC sequences would reach whoever tails the log in a terminal.
 */
export function contextLogger(context: InvocationContext): Logger {
  const line = (message: string) => escapeControl(redact(message));
  return {
    info: (message) => context.log(line(message)),
    warn: (message) => context.warn(line(message)),
    error: (message) => context.error(line(message)),
  };
}
