import { z } from "zod";
import type { Env } from "../../core/settings.js";
import { parseDeclaredNames } from "../../core/transparency/declaredNames.js";
import type { WatchedName } from "../../core/transparency/issuance.js";
import {
  CERT_SPOTTER_URL,
  type TransparencySettings,
} from "../../core/transparency/transparencySettings.js";
import { ConfigError, type Problem } from "../../lib/errors.js";
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from "../../lib/time.js";
import { directSecret } from "./directSecret.js";
import { duration } from "./duration.js";
import { upstreamUrl } from "./upstreamUrl.js";
import { wholeNumber } from "./wholeNumber.js";

/** The names, for KNOWN_SETTINGS and the docs (the schedule is the host's, read from the binding). */
export const TRANSPARENCY_SETTINGS = [
  "CERTSCHED_CT_WATCH",
  "CERTSCHED_CT_URL",
  "CERTSCHED_CT_API_KEY",
  "CERTSCHED_CT_API_KEY_SECRET_NAME",
  "CERTSCHED_CT_DOMAINS",
  "CERTSCHED_CT_HOURLY_ALLOWANCE",
  "CERTSCHED_CT_COMPLETION_WINDOW",
  "CERTSCHED_CT_TIMEOUT",
] as const;

/** CERTSCHED_CT_DOMAINS: `"example.org"` (with subdomains) or `{"name": ..., "subdomains": false}`. */
export function parseDeclaredDomains(text: string | undefined): WatchedName[] | Problem[] {
  const label = "CERTSCHED_CT_DOMAINS";
  const { names, problems } = parseDeclaredNames(text, label);
  if (problems.length === 0) return names;
  // Each problem starts with the entry it names: `CERTSCHED_CT_DOMAINS[2].name: ...`.
  return problems.map((line) => {
    const colon = line.indexOf(": ");
    return colon > 0
      ? { name: line.slice(0, colon), message: line.slice(colon + 2) }
      : { name: label, message: line };
  });
}

const schema = z.object({
  CERTSCHED_CT_WATCH: z
    .enum(["true", "false"], { message: "must be true or false" })
    .default("false")
    .transform((v) => v === "true"),
  CERTSCHED_CT_URL: upstreamUrl().default(CERT_SPOTTER_URL),
  CERTSCHED_CT_API_KEY: directSecret.optional(),
  CERTSCHED_CT_API_KEY_SECRET_NAME: z
    .string()
    .regex(/^[0-9A-Za-z-]{1,127}$/, "must be a Key Vault secret name (letters, digits, hyphens)")
    .default("certsched-ct-api-key"),
  CERTSCHED_CT_HOURLY_ALLOWANCE: wholeNumber(1, 100_000, "requests").default(100),
  CERTSCHED_CT_COMPLETION_WINDOW: duration("2d", HOUR_MS, 30 * DAY_MS, "1h to 30d"),
  CERTSCHED_CT_TIMEOUT: duration("20s", SECOND_MS, 2 * MINUTE_MS, "1s to 2m"),
});

/** Parses the Certificate Transparency settings; throws one ConfigError naming every problem. */
export function loadTransparencySettings(env: Env): TransparencySettings {
  const raw: Record<string, string> = {};
  for (const name of TRANSPARENCY_SETTINGS) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") raw[name] = value.trim();
  }
  const result = schema.safeParse(raw);
  const domains = parseDeclaredDomains(raw.CERTSCHED_CT_DOMAINS);
  const problems: Problem[] = [
    ...(result.success
      ? []
      : result.error.issues.map((issue) => ({
          name: String(issue.path[0] ?? "(settings)"),
          message: issue.message,
        }))),
    ...domains.filter((d): d is Problem => "message" in d),
  ];
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  const s = result.data;
  return {
    watch: s.CERTSCHED_CT_WATCH,
    url: s.CERTSCHED_CT_URL,
    ...(s.CERTSCHED_CT_API_KEY ? { apiKey: s.CERTSCHED_CT_API_KEY } : {}),
    apiKeySecretName: s.CERTSCHED_CT_API_KEY_SECRET_NAME,
    domains: domains as WatchedName[],
    hourlyAllowance: s.CERTSCHED_CT_HOURLY_ALLOWANCE,
    completionWindowMs: s.CERTSCHED_CT_COMPLETION_WINDOW,
    timeoutMs: s.CERTSCHED_CT_TIMEOUT,
  };
}
