import { createHash } from "node:crypto";

/**
 * Table storage keys made from certificate names, for every table that files rows by name (the
 * inventory's row keys, the history's event partitions). A PartitionKey or RowKey holds "up to
 * 1 KiB" of UTF-16, 512 characters (Azurite refuses one character more), and none of "/", "\",
 * "#", "?" or a control character; a certificate name is any text the service sends (e.g.
 * 2,000 characters, or 150 CJK characters that escape to 1,350).
 *
 * A name whose escaped form fits keeps it: rows written before long names were handled are
 * found where they are. A longer one is its escaped head, the marker "%h" and the SHA-256 of
 * its whole escaped form. The marker never appears in an escaped name ("%" always comes out as
 * "%25"), so a long name's key is never a short name's, and two long names share one only if
 * SHA-256 collides. Rows keep the full name in a property; readers compare it with the name
 * asked, so even a collision would read as "another certificate", never as this one.
 */

/** Longest PartitionKey or RowKey, in UTF-16 code units (1 KiB). */
export const MAX_KEY_CHARS = 512;

/** Between a long name's head and its hash; never in an escaped name. */
const HASHED = "%h";
/** SHA-256 in hex. */
const DIGEST_CHARS = 64;

const LONE_SURROGATE = /^[\uD800-\uDFFF]$/;
/** An escape cut short at the end of a head ("%", "%4", "%uD8"): dropped, for people reading. */
const CUT_ESCAPE = /%(?:u[0-9A-F]{0,3}|[0-9A-F]?)$/;

/**
 * A name URI-encoded, so no character a key may not hold remains. encodeURIComponent refuses a
 * lone surrogate (JSON can carry one), so each gets `%uXXXX`, a form encodeURIComponent never
 * produces: two names never share an escaped form.
 */
export function escapedName(name: string): string {
  let key = "";
  // for...of walks code points: a pair stays whole, a lone surrogate comes alone.
  for (const c of name) {
    key += LONE_SURROGATE.test(c)
      ? `%u${c.charCodeAt(0).toString(16).toUpperCase()}`
      : encodeURIComponent(c);
  }
  return key;
}

/**
 * The key of `name` in at most `room` characters (MAX_KEY_CHARS less any prefix the caller puts
 * before it): its escaped form when that fits, else head, "%h" and hash.
 */
export function nameKey(name: string, room: number = MAX_KEY_CHARS): string {
  if (room < HASHED.length + DIGEST_CHARS) {
    throw new RangeError(`a name key needs room for ${HASHED.length + DIGEST_CHARS} characters`);
  }
  const escaped = escapedName(name);
  if (escaped.length <= room) return escaped;
  const digest = createHash("sha256").update(escaped).digest("hex");
  const head = escaped.slice(0, room - HASHED.length - DIGEST_CHARS).replace(CUT_ESCAPE, "");
  return `${head}${HASHED}${digest}`;
}
