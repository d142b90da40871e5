import { z } from "zod";
import {
  type Acknowledgement,
  type IssuanceVerdict,
  MAX_DNS_NAME,
  MAX_ISSUANCE_ID,
  MAX_ISSUANCE_NAMES,
  MAX_ISSUER_TEXT,
  type SeenIssuance,
} from "../../../core/transparency/issuance.js";
import { ValidationError } from "../../../lib/errors.js";
import { redactRecordStrings } from "../../../lib/redact/redactStrings.js";
import { parseOrThrow } from "../../../lib/zodProblems.js";
import { MAX_KEY_CHARS, nameKey } from "../nameKey.js";
import { instant, jsonText } from "./rowText.js";

/**
 * The Certificate Transparency store's rows, and the mappers both ways. Keys: an account's
 * issuances share the partition "issuance|<account>" and are keyed by the watcher's id (safe
 * characters only); its cursors share "cursor|<account>", keyed by the watched name; the
 * watcher's pause and hourly allowance share "watcher", keyed by the API key's name (never the
 * key). A row read back is input like any other: validated, never guessed at.
 */

export const ISSUANCE_PARTITION_PREFIX = "issuance|";
export const CURSOR_PARTITION_PREFIX = "cursor|";
export const WATCHER_PARTITION = "watcher";
/** What an issuance id may be: the row key is the id itself. */
export const ISSUANCE_ID = new RegExp(`^[0-9A-Za-z_-]{1,${MAX_ISSUANCE_ID}}$`);
/** Longest text of a verdict, an acknowledgement or a problem kept in a row. */
export const MAX_ROW_TEXT = 1000;
/** Problems kept per issuance. */
export const MAX_PROBLEMS = 20;
/**
 * Longest JSON of an issuance's names: a property holds 64 KiB (32,768 UTF-16 characters), and
 * 100 names of 253 characters, escaped for JSON, may be twice that. Names past it are counted.
 */
export const MAX_NAMES_JSON = 30_000;

const cut = (text: string, max = MAX_ROW_TEXT) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** `<prefix><account's key>`: a key made from the account name that fits after the prefix. */
const accountPartition = (prefix: string, account: string) =>
  `${prefix}${nameKey(account, MAX_KEY_CHARS - prefix.length)}`;

export const issuancePartition = (account: string) =>
  accountPartition(ISSUANCE_PARTITION_PREFIX, account);
export const cursorPartition = (account: string) =>
  accountPartition(CURSOR_PARTITION_PREFIX, account);

export interface IssuanceRow {
  partitionKey: string;
  rowKey: string;
  account: string;
  watched: string;
  firstSeenAt: string;
  /** JSON object: the verdict, dates as ISO-8601. */
  verdict: string;
  notifiedAt?: string;
  /** When a sender claimed the issuance's message; "" once released. */
  claimedAt?: string;
  /** JSON object: the acknowledgement, its date as ISO-8601. */
  acknowledged?: string;
  tbsSha256?: string;
  certSha256?: string;
  pubkeySha256?: string;
  notBefore?: string;
  notAfter?: string;
  /** JSON array of names, at most MAX_NAMES_JSON characters. */
  dnsNames: string;
  moreNames: number;
  issuer?: string;
  revoked: boolean;
  revokedAt?: string;
  /** JSON array of lines. */
  problems: string;
}

/** The verdict as stored: dates as ISO-8601, texts bounded. */
export function verdictJson(v: IssuanceVerdict): string {
  switch (v.kind) {
    case "expected":
      return JSON.stringify(
        v.because === "request"
          ? { ...v, certificateName: cut(v.certificateName), sentAt: v.sentAt.toISOString() }
          : { ...v, certificateName: cut(v.certificateName) },
      );
    case "pending":
      return JSON.stringify({
        kind: v.kind,
        certificateName: cut(v.certificateName),
        sentAt: v.sentAt.toISOString(),
        until: v.until.toISOString(),
      });
    case "unexpected":
      return JSON.stringify({
        kind: v.kind,
        since: v.since.toISOString(),
        why: cut(v.why),
        ...(v.recorded ? { recorded: true } : {}),
      });
  }
}

export function acknowledgementJson(a: Acknowledgement): string {
  return JSON.stringify({ at: a.at.toISOString(), by: cut(a.by), reason: cut(a.reason) });
}

/** The names that fit in MAX_NAMES_JSON, and how many did not. */
function boundedNames(names: readonly string[], more: number): { json: string; more: number } {
  const kept: string[] = [];
  let length = 2;
  for (const name of names.slice(0, MAX_ISSUANCE_NAMES)) {
    const one = cut(name, MAX_DNS_NAME);
    const size = JSON.stringify(one).length + 1;
    if (length + size > MAX_NAMES_JSON) break;
    kept.push(one);
    length += size;
  }
  return { json: JSON.stringify(kept), more: more + names.length - kept.length };
}

/** The row of an issuance; a RangeError when its id is not one a row key may be. */
export function toIssuanceRow(s: SeenIssuance): IssuanceRow {
  const i = s.issuance;
  if (!ISSUANCE_ID.test(i.id))
    throw new RangeError("an issuance id must match [0-9A-Za-z_-]{1,40}");
  const names = boundedNames(i.dnsNames, i.moreNames);
  const iso = (at: Date | undefined) => at?.toISOString();
  const optional = {
    notifiedAt: iso(s.notifiedAt),
    acknowledged: s.acknowledged ? acknowledgementJson(s.acknowledged) : undefined,
    tbsSha256: i.tbsSha256,
    certSha256: i.certSha256,
    pubkeySha256: i.pubkeySha256,
    notBefore: iso(i.notBefore),
    notAfter: iso(i.notAfter),
    issuer: i.issuer === undefined ? undefined : cut(i.issuer, MAX_ISSUER_TEXT),
    revokedAt: iso(i.revokedAt),
  };
  return {
    partitionKey: issuancePartition(s.account),
    rowKey: i.id,
    account: s.account,
    watched: cut(s.watched, MAX_DNS_NAME),
    firstSeenAt: s.firstSeenAt.toISOString(),
    verdict: verdictJson(s.verdict),
    dnsNames: names.json,
    moreNames: names.more,
    revoked: i.revoked,
    problems: JSON.stringify(i.problems.slice(0, MAX_PROBLEMS).map((p) => cut(p))),
    ...(Object.fromEntries(
      Object.entries(optional).filter(([, value]) => value !== undefined),
    ) as Partial<IssuanceRow>),
  };
}

const text = z
  .string()
  .max(MAX_ROW_TEXT, { message: `must be at most ${MAX_ROW_TEXT} characters` });
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, { message: "must be 64 lower-case hex digits" });
const where = z.enum(["served", "vault", "receipt"]);

const verdictSchema = z.union([
  z.strictObject({
    kind: z.literal("expected"),
    because: z.enum(["public-key", "tbs"]),
    certificateName: text,
    where,
  }),
  z.strictObject({
    kind: z.literal("expected"),
    because: z.literal("request"),
    certificateName: text,
    sentAt: instant,
  }),
  z.strictObject({
    kind: z.literal("pending"),
    certificateName: text,
    sentAt: instant,
    until: instant,
  }),
  z.strictObject({
    kind: z.literal("unexpected"),
    since: instant,
    why: text,
    recorded: z.boolean().optional(),
  }),
]);

const acknowledgementSchema = z.strictObject({ at: instant, by: text, reason: text });

const rowSchema = z
  .object({
    partitionKey: z.string(),
    rowKey: z.string().regex(ISSUANCE_ID, { message: "must be an issuance id" }),
    account: z.string().min(1, { message: "must not be empty" }),
    watched: z.string().min(1).max(MAX_DNS_NAME),
    firstSeenAt: instant,
    verdict: jsonText(verdictSchema),
    notifiedAt: instant.optional(),
    claimedAt: z.union([z.literal(""), instant]).optional(),
    acknowledged: jsonText(acknowledgementSchema).optional(),
    tbsSha256: sha256.optional(),
    certSha256: sha256.optional(),
    pubkeySha256: sha256.optional(),
    notBefore: instant.optional(),
    notAfter: instant.optional(),
    dnsNames: jsonText(z.array(z.string().max(MAX_DNS_NAME)).max(MAX_ISSUANCE_NAMES)),
    moreNames: z.number().int().min(0, { message: "must be a whole number from 0" }),
    issuer: z.string().max(MAX_ISSUER_TEXT).optional(),
    revoked: z.boolean(),
    revokedAt: instant.optional(),
    problems: jsonText(z.array(text).max(MAX_PROBLEMS)),
  })
  .superRefine((row, ctx) => {
    // A row filed under another account's partition would be read as that account's.
    if (typeof row.account === "string" && row.partitionKey !== issuancePartition(row.account)) {
      ctx.addIssue({
        code: "custom",
        path: ["account"],
        message: "must be the account the partition key stands for",
      });
    }
  });

/** An issuance as read back, with its message's claim (not part of what callers see). */
export interface StoredIssuance {
  readonly seen: SeenIssuance;
  /** When a sender claimed its message; undefined: no claim held. */
  readonly claimedAt?: Date | undefined;
}

/** A stored row; throws a ValidationError naming each field that is not right. */
export function fromIssuanceRow(stored: Record<string, unknown>, table: string): StoredIssuance {
  // Another process may have written it, with tokens this one never held: redacted first.
  const row = redactRecordStrings(stored);
  const r = parseOrThrow(rowSchema, row, `issuance row ${String(row.rowKey)} in table ${table}`);
  const optional = {
    tbsSha256: r.tbsSha256,
    certSha256: r.certSha256,
    pubkeySha256: r.pubkeySha256,
    notBefore: r.notBefore,
    notAfter: r.notAfter,
    issuer: r.issuer,
    revokedAt: r.revokedAt,
  };
  const seen: SeenIssuance = {
    account: r.account,
    issuance: {
      id: r.rowKey,
      dnsNames: r.dnsNames,
      moreNames: r.moreNames,
      revoked: r.revoked,
      problems: r.problems,
      ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
    },
    watched: r.watched,
    firstSeenAt: r.firstSeenAt,
    verdict: r.verdict,
    ...(r.notifiedAt ? { notifiedAt: r.notifiedAt } : {}),
    ...(r.acknowledged ? { acknowledged: r.acknowledged } : {}),
  };
  return r.claimedAt instanceof Date ? { seen, claimedAt: r.claimedAt } : { seen };
}

/** The row key of a watched name's cursor, or of an API key name's watcher row. */
export const nameRowKey = (name: string) => nameKey(name);

/** One watched name's cursor: the id to ask after next. */
export interface CursorRow {
  partitionKey: string;
  rowKey: string;
  account: string;
  /** The watched name whole (the key may be its hash). */
  name: string;
  after: string;
}

const cursorSchema = z.object({
  account: z.string(),
  name: z.string(),
  after: z.string().regex(ISSUANCE_ID, { message: "must be an issuance id" }),
});

/**
 * The cursor a row holds for `account` and `name`; throws a ValidationError when the row is not
 * one (another name's, under a colliding key, is not this name's either).
 */
export function fromCursorRow(
  stored: Record<string, unknown>,
  account: string,
  name: string,
  table: string,
): string {
  const what = `cursor row ${String(stored.rowKey)} in table ${table}`;
  const r = parseOrThrow(cursorSchema, redactRecordStrings(stored), what);
  if (r.account !== account || r.name !== name) {
    throw new ValidationError(what, [
      { name: "name", message: "must be the watched name the row key stands for" },
    ]);
  }
  return r.after;
}

/** An API key name's pause and the requests of its current hour. */
export interface WatcherRow {
  partitionKey: string;
  rowKey: string;
  keyName: string;
  pausedUntil?: string;
  reason?: string;
  /** The UTC hour `requests` counts in (its start, ISO-8601). */
  hour?: string;
  requests?: number;
}

const watcherSchema = z.object({
  keyName: z.string(),
  pausedUntil: instant.optional(),
  reason: text.optional(),
  hour: instant.optional(),
  requests: z.number().int().min(0, { message: "must be a whole number from 0" }).optional(),
});

export interface StoredWatcher {
  readonly pausedUntil?: Date | undefined;
  readonly reason?: string | undefined;
  readonly hour?: Date | undefined;
  readonly requests: number;
}

/** The watcher row of `keyName`; throws a ValidationError when the row is not one. */
export function fromWatcherRow(
  stored: Record<string, unknown>,
  keyName: string,
  table: string,
): StoredWatcher {
  const what = `watcher row ${String(stored.rowKey)} in table ${table}`;
  const r = parseOrThrow(watcherSchema, redactRecordStrings(stored), what);
  if (r.keyName !== keyName) {
    throw new ValidationError(what, [
      { name: "keyName", message: "must be the key name the row key stands for" },
    ]);
  }
  return { pausedUntil: r.pausedUntil, reason: r.reason, hour: r.hour, requests: r.requests ?? 0 };
}

export const pauseReason = (reason: string) => cut(reason);
