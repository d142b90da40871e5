import { z } from "zod";
import type { Env } from "../../core/settings.js";
import type { WatchedName } from "../../core/transparency/issuance.js";
import {
  CERT_SPOTTER_URL,
  type TransparencySettings,
} from "../../core/transparency/transparencySettings.js";
import { ConfigError, type Problem } from "../../lib/errors.js";
import { jsonSyntaxProblem } from "../../lib/text/jsonSyntax.js";
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from "../../lib/time.js";
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

/** Most names CERTSCHED_CT_DOMAINS may declare. */
const MAX_DECLARED = 500;

/** A DNS name with at least one dot, lower-case letters, digits and hyphens: no IP, no wildcard. */
const DNS_NAME =
  /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

const NAME_RULE =
  "must be a DNS name with at least one dot (letters, digits, hyphens; no wildcard, no IP address)";

const entry = z.union([
  z.string(),
  z.strictObject({ name: z.string(), subdomains: z.boolean().optional() }),
]);

/** CERTSCHED_CT_DOMAINS: `"example.org"` (with subdomains) or `{"name": ..., "subdomains": false}`. */
export function parseDeclaredDomains(text: string | undefined): WatchedName[] | Problem[] {
  const label = "CERTSCHED_CT_DOMAINS";
  if (text === undefined || text.trim() === "") return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return [{ name: label, message: `is not valid JSON (${jsonSyntaxProblem(error)})` }];
  }
  const parsed = z.array(entry).max(MAX_DECLARED).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = (issue?.path ?? [])
      .map((step) => (typeof step === "number" ? `[${step}]` : `.${String(step)}`))
      .join("");
    return [
      {
        name: `${label}${where}`,
        message: `must be a JSON array (at most ${MAX_DECLARED}) of "example.org" or {"name": "example.org", "subdomains": false}`,
      },
    ];
  }
  const problems: Problem[] = [];
  const names: WatchedName[] = [];
  parsed.data.forEach((e, i) => {
    const given = typeof e === "string" ? e : e.name;
    const name = given.trim().toLowerCase().replace(/\.$/, "");
    if (!DNS_NAME.test(name)) {
      problems.push({
        name: `${label}[${i}]${typeof e === "string" ? "" : ".name"}`,
        message: NAME_RULE,
      });
      return;
    }
    const subdomains = typeof e === "string" ? true : (e.subdomains ?? true);
    names.push({ name, subdomains, source: "setting" });
  });
  return problems.length > 0 ? problems : names;
}

const schema = z.object({
  CERTSCHED_CT_WATCH: z
    .enum(["true", "false"], { message: "must be true or false" })
    .default("false")
    .transform((v) => v === "true"),
  CERTSCHED_CT_URL: upstreamUrl().default(CERT_SPOTTER_URL),
  CERTSCHED_CT_API_KEY: z.string().optional(),
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
