import type { StoredIssuance } from "./issuances.js";

/**
 * The query of `GET /v1/issuances` as the simulator reads it, and which issuances it selects.
 * Cert Spotter's reference: `domain` (required, up to 10), `include_subdomains`,
 * `match_wildcards`, `after` (exclusive), `expand` (repeated), `expired`.
 */

export interface IssuanceQuery {
  /** Lower-case, without a trailing dot. */
  readonly domains: readonly string[];
  readonly includeSubdomains: boolean;
  readonly matchWildcards: boolean;
  /** Undefined: from the first issuance. */
  readonly after: bigint | undefined;
  readonly expand: ReadonlySet<string>;
  readonly expired: boolean;
}

/** An answer for a request the simulator refuses: a status and Cert Spotter's error object. */
export interface QueryError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

export const MAX_DOMAINS = 10;

/**
 * A few public suffixes, for the "`com` is not a domain" rule: every single label, and these.
 * Not the Public Suffix List: enough for the names tests use.
 */
const PUBLIC_SUFFIXES = new Set([
  "co.uk",
  "org.uk",
  "ac.uk",
  "com.au",
  "net.au",
  "co.jp",
  "com.br",
  "co.nz",
  "azurewebsites.net",
  "cloudapp.net",
  "github.io",
  "blob.core.windows.net",
]);

function isPublicSuffix(domain: string): boolean {
  return !domain.includes(".") || PUBLIC_SUFFIXES.has(domain);
}

const DNS_NAME =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function flag(params: URLSearchParams, name: string): boolean | QueryError {
  const value = params.get(name);
  if (value === null || value === "" || value === "false") return false;
  if (value === "true") return true;
  return { status: 400, code: "bad_request", message: `${name} must be true or false` };
}

/** Reads the query, or says why it is refused (400, Cert Spotter's `{code, message}`). */
export function parseIssuanceQuery(params: URLSearchParams): IssuanceQuery | QueryError {
  const domains = params.getAll("domain").map((d) => d.trim().toLowerCase().replace(/\.$/, ""));
  if (domains.length === 0 || domains.every((d) => d === "")) {
    return { status: 400, code: "bad_request", message: "The domain parameter is required" };
  }
  if (domains.length > MAX_DOMAINS) {
    return {
      status: 400,
      code: "bad_request",
      message: `The domain parameter may be repeated at most ${MAX_DOMAINS} times`,
    };
  }
  for (const domain of domains) {
    if (!DNS_NAME.test(domain)) {
      return { status: 400, code: "bad_request", message: "The domain parameter is malformed" };
    }
    if (isPublicSuffix(domain)) {
      return {
        status: 400,
        code: "bad_request",
        message: `${domain} is a public suffix, not a registered domain`,
      };
    }
  }
  const includeSubdomains = flag(params, "include_subdomains");
  const matchWildcards = flag(params, "match_wildcards");
  const expired = flag(params, "expired");
  for (const f of [includeSubdomains, matchWildcards, expired])
    if (typeof f !== "boolean") return f;
  const afterText = params.get("after") ?? "";
  if (afterText !== "" && !/^\d{1,30}$/.test(afterText)) {
    return { status: 400, code: "bad_request", message: "The after parameter is malformed" };
  }
  return {
    domains,
    includeSubdomains: includeSubdomains === true,
    matchWildcards: matchWildcards === true,
    after: afterText === "" ? undefined : BigInt(afterText),
    expand: new Set(params.getAll("expand")),
    expired: expired === true,
  };
}

/** Whether one of the issuance's names matches one of the query's domains. */
export function matches(query: IssuanceQuery, dnsNames: readonly string[]): boolean {
  return dnsNames.some((raw) => {
    const name = raw.toLowerCase();
    return query.domains.some((domain) => {
      if (name === domain) return true;
      if (query.includeSubdomains && name.endsWith(`.${domain}`)) return true;
      // `*.example.com` matches www.example.com (one label, as a wildcard does).
      if (!query.matchWildcards || !name.startsWith("*.")) return false;
      const dot = domain.indexOf(".");
      return dot > 0 && name.slice(2) === domain.slice(dot + 1);
    });
  });
}

/** The page for a query: matching issuances after `after`, in discovery order, at most `pageSize`. */
export function selectPage(
  all: readonly StoredIssuance[],
  query: IssuanceQuery,
  now: Date,
  pageSize: number,
): StoredIssuance[] {
  const page: StoredIssuance[] = [];
  for (const issuance of all) {
    if (page.length >= pageSize) break;
    if (query.after !== undefined && BigInt(issuance.id) <= query.after) continue;
    if (!query.expired && issuance.notAfter.getTime() < now.getTime()) continue;
    if (matches(query, issuance.dnsNames)) page.push(issuance);
  }
  return page;
}
