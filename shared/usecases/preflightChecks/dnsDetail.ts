import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * Values read from DNS in a check's detail: untrusted, so each is escaped and cut short, and a
 * list names only its first few, so certsched's own words after it (what is allowed, which
 * servers ARM names) still fit in the detail.
 */

/** Characters of one DNS value in a detail, after escaping, the ellipsis included. */
export const MAX_DETAIL_VALUE = 64;
/** Values named in one list; the rest are counted. */
export const MAX_DETAIL_VALUES = 5;

/** One DNS value for a detail: control characters escaped, at most MAX_DETAIL_VALUE characters. */
export function detailValue(value: string): string {
  return boundDetail(value, MAX_DETAIL_VALUE);
}

/** `a, b, c` (each through detailValue), then `and N more` past MAX_DETAIL_VALUES. */
export function detailList(values: readonly string[]): string {
  const shown = values.slice(0, MAX_DETAIL_VALUES).map(detailValue);
  const rest = values.length - shown.length;
  return rest > 0 ? `${shown.join(", ")} and ${rest} more` : shown.join(", ");
}
