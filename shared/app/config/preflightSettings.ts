import { isIP } from "node:net";
import { z } from "zod";
import type { DnsServer, PreflightSettings } from "../../core/preflight/preflightSettings.js";
import type { Env } from "../../core/settings.js";
import { parseConnectTo } from "../../core/verification/connectTo.js";
import { ConfigError, type Problem } from "../../lib/errors.js";
import { SECOND_MS } from "../../lib/time.js";
import { duration } from "./duration.js";
import { wholeNumber } from "./wholeNumber.js";

/** The names, for KNOWN_SETTINGS and the docs (CERTSCHED_PREFLIGHT_SCHEDULE is the host's). */
export const PREFLIGHT_SETTINGS = [
  "CERTSCHED_ARM_URL",
  "CERTSCHED_DNS_SERVERS",
  "CERTSCHED_CA_IDENTIFIERS",
  "CERTSCHED_PREFLIGHT_DAYS",
  "CERTSCHED_PREFLIGHT_TIMEOUT",
] as const;

const HOST_LABEL =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** `host`, `host:port`, `[v6]` or `[v6]:port`; a message naming the rule otherwise. */
export function parseDnsServer(entry: string): DnsServer | string {
  const text = entry.trim();
  let host: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1] ?? "";
    portText = bracketed[2];
    if (isIP(host) !== 6) return "must hold an IPv6 address inside [ ]";
  } else if (isIP(text) === 6) {
    host = text;
  } else {
    const colon = text.lastIndexOf(":");
    host = colon === -1 ? text : text.slice(0, colon);
    portText = colon === -1 ? undefined : text.slice(colon + 1);
    if (isIP(host) === 0 && !HOST_LABEL.test(host)) {
      return "each entry must be a host name or an IP address, with an optional :port (IPv6 in brackets: [::1]:53)";
    }
  }
  let port = 53;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65_535) {
      return "a port must be a whole number from 1 to 65535";
    }
    port = Number(portText);
  }
  return { host, port };
}

const schema = z.object({
  // Azure's SDKs send bearer tokens only over https: a local ARM needs TLS (NODE_EXTRA_CA_CERTS).
  CERTSCHED_ARM_URL: z
    .string()
    .default("https://management.azure.com")
    .transform((text, ctx) => {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        ctx.addIssue({ code: "custom", message: "must be an absolute URL" });
        return z.NEVER;
      }
      if (url.protocol !== "https:") {
        ctx.addIssue({
          code: "custom",
          message:
            "must use https (Azure's SDKs send tokens only over TLS; trust a local one with NODE_EXTRA_CA_CERTS)",
        });
        return z.NEVER;
      }
      if (url.username || url.password || url.search || url.hash) {
        ctx.addIssue({
          code: "custom",
          message: "must not carry credentials, a query or a fragment",
        });
        return z.NEVER;
      }
      return url.href.replace(/\/+$/, "");
    }),
  CERTSCHED_DNS_SERVERS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return [];
      const servers: DnsServer[] = [];
      for (const entry of text.split(",")) {
        if (entry.trim() === "") continue;
        const parsed = parseDnsServer(entry);
        if (typeof parsed === "string") {
          ctx.addIssue({ code: "custom", message: parsed });
          return z.NEVER;
        }
        servers.push(parsed);
      }
      return servers;
    }),
  CERTSCHED_CA_IDENTIFIERS: z
    .string()
    .default("letsencrypt.org")
    .transform((text, ctx) => {
      const ids = text
        .split(",")
        .map((id) => id.trim().toLowerCase())
        .filter((id) => id !== "");
      if (ids.length === 0 || ids.some((id) => !HOST_LABEL.test(id))) {
        ctx.addIssue({
          code: "custom",
          message:
            "must be comma-separated domain names of certificate authorities (e.g. letsencrypt.org)",
        });
        return z.NEVER;
      }
      return ids;
    }),
  CERTSCHED_PREFLIGHT_DAYS: z
    .string()
    .default("30")
    .pipe(wholeNumber(0, 365, "days")),
  // A silent DNS server makes a check unknown within seconds, not after the resolver's ~20 s.
  CERTSCHED_PREFLIGHT_TIMEOUT: duration("5s", 100, 60 * SECOND_MS),
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
});

/** Parses the preflight settings from `env`; throws one ConfigError naming every problem. */
export function loadPreflightSettings(env: Env): PreflightSettings {
  const raw: Record<string, string> = {};
  for (const name of [...PREFLIGHT_SETTINGS, "CERTSCHED_VERIFY_CONNECT_TO"]) {
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
    armUrl: s.CERTSCHED_ARM_URL,
    dnsServers: s.CERTSCHED_DNS_SERVERS,
    caIdentifiers: s.CERTSCHED_CA_IDENTIFIERS,
    days: s.CERTSCHED_PREFLIGHT_DAYS,
    timeoutMs: s.CERTSCHED_PREFLIGHT_TIMEOUT,
    connectTo: s.CERTSCHED_VERIFY_CONNECT_TO,
  };
}
