import type { IssuancePage } from "../ports/transparency.js";

/**
 * Paging through the watcher's issuances safely: a watcher whose ids go backwards or whose page
 * repeats would keep a run asking forever, or move the cursor back and read issuances twice.
 * Ids are opaque; Cert Spotter's are decimal strings that grow in the order it discovered the
 * issuances, so decimal ids are compared as numbers (of any length), and other ids only for
 * equality.
 */

/** Most pages read per watched name in one run; the cursor keeps the place for the next run. */
export const MAX_PAGES_PER_NAME = 50;

const DECIMAL = /^[0-9]+$/;

/**
 * How two ids compare: negative when `a` comes first, 0 when equal, positive when later;
 * undefined when they cannot be ordered (not both decimal and not equal).
 */
export function compareIds(a: string, b: string): number | undefined {
  if (a === b) return 0;
  if (!DECIMAL.test(a) || !DECIMAL.test(b)) return undefined;
  const x = a.replace(/^0+(?=.)/, "");
  const y = b.replace(/^0+(?=.)/, "");
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Why a page cannot be trusted to move the cursor, in words; undefined when it can. `after` is
 * the id the page was asked after, `previousLastId` the last id of the page before it in this run.
 */
export function pageProblem(
  after: string | undefined,
  page: IssuancePage,
  previousLastId?: string,
): string | undefined {
  const ids = page.issuances.map((i) => i.id);
  for (let i = 1; i < ids.length; i++) {
    const order = compareIds(ids[i - 1] as string, ids[i] as string);
    if (order === 0) return `the page holds the issuance id ${ids[i]} twice`;
    if (order !== undefined && order > 0) {
      return `the ids in the page go backwards (${ids[i - 1]}, then ${ids[i]})`;
    }
  }
  const last = page.lastId;
  if (last === undefined) return undefined;
  const earlier: [string | undefined, string][] = [
    [after, `the page asked after id ${after}`],
    [previousLastId, `the page before ended at id ${previousLastId} and this one`],
  ];
  for (const [id, page] of earlier) {
    const order = id === undefined ? undefined : compareIds(id, last);
    if (order === 0) return `${page} ends at ${last} again: the watcher repeats its page`;
    if (order !== undefined && order > 0) {
      return `the ids go backwards: ${page} ends at ${last}`;
    }
  }
  const first = ids[0];
  const start = after === undefined || first === undefined ? undefined : compareIds(after, first);
  if (start !== undefined && start >= 0) {
    return `the page asked after id ${after} starts at ${first}, which is not after it`;
  }
  return undefined;
}
