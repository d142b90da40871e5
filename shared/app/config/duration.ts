import { z } from "zod";
import { parseDuration } from "../../lib/time.js";

/**
 * A duration setting (parseDuration), its default, and its range in ms: one rule for all.
 * `range` says the range in the message as the docs do (`1h to 60d`); unset: in seconds.
 */
export function duration(defaultText: string, min: number, max: number, range?: string) {
  return z
    .string()
    .default(defaultText)
    .transform((text, ctx) => {
      // A bare 0 needs no unit (where the range allows none, as for CERTSCHED_WINDOW_JITTER).
      const ms = text.trim() === "0" ? 0 : parseDuration(text);
      if (ms === undefined) {
        ctx.addIssue({ code: "custom", message: "must be a duration like 2h, 90m, 30s or PT2H" });
        return z.NEVER;
      }
      if (ms < min || ms > max) {
        ctx.addIssue({
          code: "custom",
          message: range
            ? `must be from ${range}`
            : `must be between ${min / 1000}s and ${max / 1000}s`,
        });
        return z.NEVER;
      }
      return ms;
    });
}
