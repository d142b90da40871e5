import { z } from "zod";
import {
  DEFAULT_EXPIRING_DAYS,
  type EstateSettings,
  MAX_EXPIRING_DAYS,
  MIN_EXPIRING_DAYS,
} from "../../core/estate/estateSettings.js";
import type { Env } from "../../core/settings.js";
import { ConfigError } from "../../lib/errors.js";
import { MINUTE_MS, SECOND_MS } from "../../lib/time.js";
import { duration } from "./duration.js";
import { wholeNumber } from "./wholeNumber.js";

/** The names, for KNOWN_SETTINGS and the docs (the schedule is the host's, read from the binding). */
export const ESTATE_SETTINGS = [
  "CERTSCHED_ESTATE",
  "CERTSCHED_ESTATE_EXPIRING_DAYS",
  "CERTSCHED_ESTATE_TIMEOUT",
] as const;

const schema = z.object({
  CERTSCHED_ESTATE: z
    .enum(["true", "false"], { message: "must be true or false" })
    .default("true")
    .transform((v) => v === "true"),
  CERTSCHED_ESTATE_EXPIRING_DAYS: wholeNumber(MIN_EXPIRING_DAYS, MAX_EXPIRING_DAYS, "days").default(
    DEFAULT_EXPIRING_DAYS,
  ),
  CERTSCHED_ESTATE_TIMEOUT: duration("30s", SECOND_MS, 2 * MINUTE_MS, "1s to 2m"),
});

/** Parses the estate's settings; throws one ConfigError naming every problem. */
export function loadEstateSettings(env: Env): EstateSettings {
  const raw: Record<string, string> = {};
  for (const name of ESTATE_SETTINGS) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") raw[name] = value.trim();
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        name: String(issue.path[0] ?? "(settings)"),
        message: issue.message,
      })),
    );
  }
  return {
    enabled: result.data.CERTSCHED_ESTATE,
    expiringDays: result.data.CERTSCHED_ESTATE_EXPIRING_DAYS,
    timeoutMs: result.data.CERTSCHED_ESTATE_TIMEOUT,
  };
}
