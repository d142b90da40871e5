import { z } from "zod";
import type { Env } from "../../core/settings.js";
import { parseConnectTo } from "../../core/verification/connectTo.js";
import type { VerifySettings } from "../../core/verification/verifySettings.js";
import { ConfigError, type Problem } from "../../lib/errors.js";
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from "../../lib/time.js";
import { duration } from "./duration.js";

/** The names, for KNOWN_SETTINGS and the docs. */
export const VERIFY_SETTINGS = [
  "CERTSCHED_VERIFY_CONNECT_TO",
  "CERTSCHED_VERIFY_WARN_DAYS",
  "CERTSCHED_VERIFY_WINDOW",
  "CERTSCHED_VERIFY_UNREACHABLE_AFTER",
  "CERTSCHED_SYNC_WINDOW",
  "CERTSCHED_EVENT_RECHECK_FIRST",
] as const;

const schema = z.object({
  CERTSCHED_VERIFY_CONNECT_TO: z
    .string()
    .optional()
    .transform((text, ctx) => {
      try {
        return parseConnectTo(text);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        for (const p of error.problems) ctx.addIssue({ code: "custom", message: p.message });
        return z.NEVER;
      }
    }),
  // Whole days, as daysLeft is; 365 covers any certificate a public CA issues today.
  CERTSCHED_VERIFY_WARN_DAYS: z
    .string()
    .default("14")
    .transform((text, ctx) => {
      const n = Number(text);
      if (!/^\s*\d+\s*$/.test(text) || n < 1 || n > 365) {
        ctx.addIssue({ code: "custom", message: "must be a whole number of days from 1 to 365" });
        return z.NEVER;
      }
      return n;
    }),
  // 1 min .. 7 d: the service usually completes a renewal within minutes to an hour.
  CERTSCHED_VERIFY_WINDOW: duration("2h", MINUTE_MS, 7 * DAY_MS),
  // 1 min .. 30 d: App Service picks up a new vault version "typically within 24 hours".
  CERTSCHED_SYNC_WINDOW: duration("24h", MINUTE_MS, 30 * DAY_MS),
  // 1 s .. 1 h: after a Key Vault event, the consumers' first recheck; each next waits twice as long.
  CERTSCHED_EVENT_RECHECK_FIRST: duration("1m", SECOND_MS, HOUR_MS, "1s to 1h"),
  // 0 (no grace) .. 30 d.
  CERTSCHED_VERIFY_UNREACHABLE_AFTER: duration("24h", 0, 30 * DAY_MS),
  // The same rule as loadSettings applies to it (shared/app/config/settings.ts).
  CERTSCHED_HTTP_TIMEOUT: duration("30s", 100, 600_000),
});

/** Parses the verification settings from `env`; throws one ConfigError naming every problem. */
export function loadVerifySettings(env: Env): VerifySettings {
  const raw: Record<string, string> = {};
  for (const name of [...VERIFY_SETTINGS, "CERTSCHED_HTTP_TIMEOUT"]) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") raw[name] = value;
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const problems: Problem[] = result.error.issues.map((issue) => ({
      name: String(issue.path[0] ?? "(settings)"),
      message: issue.message,
    }));
    throw new ConfigError(problems);
  }
  const s = result.data;
  return {
    connectTo: s.CERTSCHED_VERIFY_CONNECT_TO,
    warnDays: s.CERTSCHED_VERIFY_WARN_DAYS,
    windowMs: s.CERTSCHED_VERIFY_WINDOW,
    unreachableAfterMs: s.CERTSCHED_VERIFY_UNREACHABLE_AFTER,
    syncWindowMs: s.CERTSCHED_SYNC_WINDOW,
    eventRecheckFirstMs: s.CERTSCHED_EVENT_RECHECK_FIRST,
    timeoutMs: s.CERTSCHED_HTTP_TIMEOUT,
    // Node's own variable, not certsched's: read as Node read it at start (blank: none).
    ...(env.NODE_EXTRA_CA_CERTS?.trim() ? { extraCaCertsPath: env.NODE_EXTRA_CA_CERTS } : {}),
  };
}
