import { z } from "zod";
import {
  type AriDirectory,
  type AriSettings,
  LETS_ENCRYPT_DIRECTORY,
} from "../../core/ari/ariSettings.js";
import type { Env } from "../../core/settings.js";
import { ConfigError, type Problem } from "../../lib/errors.js";
import { SECOND_MS } from "../../lib/time.js";
import { duration } from "./duration.js";

/** The names, for KNOWN_SETTINGS and the docs. */
export const ARI_SETTINGS = ["CERTSCHED_ARI_DIRECTORIES", "CERTSCHED_ARI_TIMEOUT"] as const;

const ENTRY_RULE =
  "must be `none`, or entries `Issuer Name=https://ca.example/directory` separated by `;` (the issuer's O or CN as its certificates carry it)";

/**
 * One `issuer=url` entry. The first `=` splits it: an issuer name has none, a URL may (its
 * query). A message naming the rule otherwise.
 */
export function parseAriDirectory(entry: string): AriDirectory | string {
  const eq = entry.indexOf("=");
  if (eq === -1) return ENTRY_RULE;
  const issuer = entry.slice(0, eq).trim();
  const text = entry.slice(eq + 1).trim();
  if (issuer === "" || issuer.length > 200) return ENTRY_RULE;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `the directory of ${issuer} must be an absolute URL`;
  }
  // The CA's answers decide renewals: they must come over TLS (a local one is trusted with
  // NODE_EXTRA_CA_CERTS, as the sandbox's is).
  if (url.protocol !== "https:") return `the directory of ${issuer} must use https`;
  if (url.username || url.password || url.hash) {
    return `the directory of ${issuer} must not carry credentials or a fragment`;
  }
  return { issuer, directoryUrl: url.href };
}

const schema = z.object({
  CERTSCHED_ARI_DIRECTORIES: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return [LETS_ENCRYPT_DIRECTORY];
      if (text.trim().toLowerCase() === "none") return [];
      const directories: AriDirectory[] = [];
      for (const entry of text.split(/[;\n]/)) {
        if (entry.trim() === "") continue;
        const parsed = parseAriDirectory(entry);
        if (typeof parsed === "string") {
          ctx.addIssue({ code: "custom", message: parsed });
          return z.NEVER;
        }
        const lower = parsed.issuer.toLowerCase();
        if (directories.some((d) => d.issuer.toLowerCase() === lower)) {
          ctx.addIssue({ code: "custom", message: `names ${parsed.issuer} twice` });
          return z.NEVER;
        }
        directories.push(parsed);
      }
      if (directories.length === 0) {
        ctx.addIssue({ code: "custom", message: ENTRY_RULE });
        return z.NEVER;
      }
      return directories;
    }),
  // A CA that does not answer makes ARI "unreachable" within seconds; it never blocks a run.
  CERTSCHED_ARI_TIMEOUT: duration("10s", SECOND_MS, 60 * SECOND_MS),
});

/** Parses the ARI settings from `env`; throws one ConfigError naming every problem. */
export function loadAriSettings(env: Env): AriSettings {
  const raw: Record<string, string> = {};
  for (const name of ARI_SETTINGS) {
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
  return {
    directories: result.data.CERTSCHED_ARI_DIRECTORIES,
    timeoutMs: result.data.CERTSCHED_ARI_TIMEOUT,
  };
}
