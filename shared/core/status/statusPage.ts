import { z } from "zod";
import { type CertificateStatus, STATUS_WORDS, type StatusWord } from "./certificateStatus.js";
import {
  PREFLIGHT_FILTERS,
  type PreflightFilter,
  type PreflightView,
  preflightFilterOf,
} from "./preflightView.js";
import { byName } from "./statusSources.js";

/**
 * Paging of the status list (GET /api/certificates): stable name order, a filter on the overall
 * word, and an opaque continuation token that resumes after the last name of a page. A page is
 * cut from a fresh read each time, so a certificate added or removed between pages is seen or
 * missed once, never repeated. Over several accounts a name may repeat: the order is
 * the name, then the account, and the token holds both.
 */

export const DEFAULT_TOP = 50;
export const MAX_TOP = 200;

/** Token format version: a token of another format is refused, not misread. */
const TOKEN_VERSION = 1;
/**
 * A certificate name is at most 1024 characters (MAX_FIELD_LENGTH); in the token each may take
 * 6 bytes (a lone surrogate is escaped as \uXXXX), 8 base64url characters per 6 bytes: 8,2xx
 * at most. A token far longer is not ours.
 */
const MAX_TOKEN_CHARS = 16_384;

/** Where a page ends: the last name, and its account when the list spans accounts. */
export interface Position {
  readonly name: string;
  readonly account?: string | undefined;
}

/** The opaque `next` of a page: base64url of a small JSON document. */
export function continuationAfter(name: string, account?: string): string {
  const document = { v: TOKEN_VERSION, after: name, ...(account === undefined ? {} : { account }) };
  return Buffer.from(JSON.stringify(document)).toString("base64url");
}

const tokenShape = z
  .object({ v: z.literal(TOKEN_VERSION), after: z.string().min(1), account: z.string().optional() })
  .strict();

/** Where a token resumes (after); undefined when the text is not a token of ours. */
export function positionAfter(token: string): Position | undefined {
  if (token.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  try {
    const parsed = tokenShape.safeParse(JSON.parse(Buffer.from(token, "base64url").toString()));
    if (!parsed.success) return undefined;
    const { after, account } = parsed.data;
    return account === undefined ? { name: after } : { name: after, account };
  } catch {
    return undefined;
  }
}

/** The name a token resumes after; undefined when the text is not a token of ours. */
export function nameAfter(token: string): string | undefined {
  return positionAfter(token)?.name;
}

/** Name order, then account order (no account first): the order of every page. */
export function byPosition(a: Position, b: Position): number {
  return byName(a.name, b.name) || byName(a.account ?? "", b.account ?? "");
}

/** A comma-separated list of `allowed` words, as a set; a message naming them when it is not. */
function wordList<W extends string>(allowed: readonly W[]) {
  const message = `must be one or more of ${allowed.join(", ")}, separated by commas`;
  return z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const words = text.split(",");
      if (!words.every((w): w is W => (allowed as readonly string[]).includes(w))) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return new Set<W>(words);
    });
}

/** The query of GET /api/certificates, strictly (parseQuery refuses any other parameter). */
export const statusPageQuery = z.object({
  top: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return DEFAULT_TOP;
      // Digits only: "5.0", " 5", "1e2" and "0x10" are not what a person typing a count means.
      const n = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
      if (!(n >= 1 && n <= MAX_TOP)) {
        ctx.addIssue({ code: "custom", message: `must be a whole number from 1 to ${MAX_TOP}` });
        return z.NEVER;
      }
      return n;
    }),
  continuation: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const after = positionAfter(text);
      if (after === undefined) {
        ctx.addIssue({
          code: "custom",
          message: "must be the `next` of an earlier answer, unchanged",
        });
        return z.NEVER;
      }
      return after;
    }),
  status: wordList<StatusWord>(STATUS_WORDS),
  /** The last preflight's status, or `none`: never checked. */
  preflight: wordList<PreflightFilter>(PREFLIGHT_FILTERS),
});

export type StatusPageQuery = z.output<typeof statusPageQuery>;

/** What a page orders and filters by: the name, the account when there is one, the words. */
type Pageable = Pick<CertificateStatus, "certificateName" | "status"> & {
  readonly account?: string;
  readonly preflight?: Pick<PreflightView, "status"> | null;
};

export interface StatusPage<T extends Pageable = CertificateStatus> {
  readonly items: T[];
  /** Present when more items follow: pass it back as `?continuation=`. */
  readonly next?: string;
}

const positionOf = (s: Pageable): Position => ({ name: s.certificateName, account: s.account });

/**
 * One page of `statuses` (any order): those with a wanted word and a wanted preflight (both
 * filters must match), after the token's position.
 */
export function pageOf<T extends Pageable>(
  statuses: readonly T[],
  query: StatusPageQuery,
): StatusPage<T> {
  const { continuation: after, status: wanted, preflight, top } = query;
  const matching = statuses
    .filter(
      (s) =>
        (wanted === undefined || wanted.has(s.status)) &&
        (preflight === undefined || preflight.has(preflightFilterOf(s.preflight ?? null))) &&
        (after === undefined || byPosition(positionOf(s), after) > 0),
    )
    .sort((a, b) => byPosition(positionOf(a), positionOf(b)));
  const items = matching.slice(0, top);
  const last = items.at(-1);
  return matching.length > items.length && last
    ? { items, next: continuationAfter(last.certificateName, last.account) }
    : { items };
}
