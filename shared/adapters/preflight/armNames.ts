/**
 * What preflight keeps of the names in an ARM answer (adapters/preflight/armLookups.ts): ARM's
 * JSON is untrusted like any answer, so only strings of a DNS name's length are kept, and only
 * so many of them.
 */

/** Most name servers kept of a zone (Azure gives four). */
export const MAX_NAME_SERVERS = 16;
/** Most host names kept of one site or binding list. */
export const MAX_HOST_NAMES = 500;
/** Longest DNS name kept (RFC 1035: 253 characters without the trailing dot). */
export const MAX_NAME = 253;

/** Names from ARM: non-empty strings only, at most `max`, each a DNS name's length at most. */
export function names(value: unknown, max: number): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((v): v is string => typeof v === "string" && v !== "" && v.length <= MAX_NAME + 1)
    .slice(0, max);
}

/** A host name as compared: lower case, no trailing dot. */
export const hostName = (name: string): string => name.toLowerCase().replace(/\.$/, "");
