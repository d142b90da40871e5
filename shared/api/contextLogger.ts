import type { InvocationContext } from "@azure/functions";
import type { Logger } from "../log.js";
import { redact } from "../redact.js";

/** The invocation's log, with every line passed through redaction as a last line of defence. */
export function contextLogger(context: InvocationContext): Logger {
  return {
    info: (message) => context.log(redact(message)),
    warn: (message) => context.warn(redact(message)),
    error: (message) => context.error(redact(message)),
  };
}
