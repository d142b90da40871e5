import type { InvocationContext } from "@azure/functions";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import { escapeControl } from "../lib/text/escapeControl.js";

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
