import { z } from "zod";
import {
  type Issuance,
  MAX_DNS_NAME,
  MAX_ISSUANCE_NAMES,
  MAX_ISSUER_TEXT,
} from "../../core/transparency/issuance.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * One entry of Cert Spotter's issuances answer (a JSON array of issuance objects) as the Issuance
 * certsched keeps. Every field came from outside: a field that cannot be read is left undefined
 * and said in `problems`, so one bad field never costs the entry; only an unreadable id does,
 * since the id is how paging goes on. Fields certsched does not use are ignored.
 */

/** Ids as Cert Spotter writes them (decimal strings so far), opaque, bounded. */
const ID = /^[0-9A-Za-z_-]{1,40}$/;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * RFC 3339 date-time (section 5.6). Date.parse alone reads far looser text, and rolls 30 February
 * over into March, so each part is checked below.
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Dates kept: 1970-01-01 through 9998-12-31 (UTC); outside, the field is left undefined. */
const EARLIEST = Date.UTC(1970, 0, 1);
const AFTER_LATEST = Date.UTC(9999, 0, 1);

/** Format characters (Unicode Cf, zero-width ones included) make two names look the same. */
const FORMAT = /\p{Cf}/gu;

const text = z.string();
const field = z.unknown().optional();
const entrySchema = z.looseObject({
  id: field,
  tbs_sha256: field,
  cert_sha256: field,
  pubkey_sha256: field,
  not_before: field,
  not_after: field,
  revoked: field,
  dns_names: field,
  issuer: field,
  revocation: field,
});
type Entry = z.infer<typeof entrySchema>;

const issuerSchema = z.looseObject({
  friendly_name: text.optional().catch(undefined),
  name: text.optional().catch(undefined),
  operator: z
    .looseObject({ name: text.optional().catch(undefined) })
    .nullish()
    .catch(undefined),
});
const revocationSchema = z.looseObject({ time: field });

/** An entry read, or why it was left out (its index in the answer, never its raw content). */
export type EntryOutcome = Issuance | { readonly leftOut: string };

/** Entry `index` (0-based) of an answer as an Issuance, or why it was left out. */
export function issuanceOf(entry: unknown, index: number): EntryOutcome {
  const parsed = entrySchema.safeParse(entry);
  if (!parsed.success) return { leftOut: `entry ${index + 1} is not an object` };
  const fields = parsed.data;
  const id = text.regex(ID).safeParse(fields.id);
  if (!id.success) {
    return { leftOut: `entry ${index + 1} has no id of 1 to 40 characters [0-9A-Za-z_-]` };
  }
  const problems: string[] = [];
  const names = dnsNamesOf(fields.dns_names, problems);
  const revocation = revocationOf(fields, problems);
  return {
    id: id.data,
    tbsSha256: hashOf(fields, "tbs_sha256", problems),
    certSha256: hashOf(fields, "cert_sha256", problems),
    pubkeySha256: hashOf(fields, "pubkey_sha256", problems),
    notBefore: dateField(fields, "not_before", problems),
    notAfter: dateField(fields, "not_after", problems),
    dnsNames: names.kept,
    moreNames: names.more,
    issuer: issuerOf(fields.issuer),
    revoked: revocation.revoked,
    revokedAt: revocation.at,
    problems,
  };
}

function hashOf(
  fields: Entry,
  key: "tbs_sha256" | "cert_sha256" | "pubkey_sha256",
  problems: string[],
): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) {
    problems.push(`${key} is missing`);
    return undefined;
  }
  const hex = text.regex(HEX_SHA256).safeParse(value);
  if (hex.success) return hex.data.toLowerCase();
  problems.push(`${key} is not 64 hex digits`);
  return undefined;
}

function dateField(
  fields: Entry,
  key: "not_before" | "not_after",
  problems: string[],
): Date | undefined {
  const value = fields[key];
  if (value === undefined || value === null) {
    problems.push(`${key} is missing`);
    return undefined;
  }
  const read = readDate(value);
  if (read instanceof Date) return read;
  problems.push(`${key} ${read}`);
  return undefined;
}

/**
 * An RFC 3339 date in 1970..9998, or why not, in words: "is not an RFC 3339 date" or, for a
 * valid date outside the range, the date and the range (the text matched the pattern above, so
 * it holds nothing but digits and separators).
 */
export function readDate(value: unknown): Date | string {
  const parsed = text.max(64).safeParse(value);
  const m = parsed.success ? RFC3339.exec(parsed.data) : null;
  if (!parsed.success || !m) return "is not an RFC 3339 date";
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetMinutes =
    m[8] === undefined ? 0 : (m[8] === "-" ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10]));
  const valid =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 60 &&
    Number(m[9] ?? 0) <= 23 &&
    Number(m[10] ?? 0) <= 59;
  if (!valid) return "is not an RFC 3339 date";
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0..99 as 1900..1999.
  at.setUTCFullYear(year, month - 1, day);
  const millis = Math.floor(Number(m[7] ?? 0) * 1000);
  at.setUTCHours(hour, minute - offsetMinutes, second, millis);
  const ms = at.getTime();
  if (ms < EARLIEST || ms >= AFTER_LATEST) {
    return `${m[0]} is outside 1970-01-01..9998-12-31`;
  }
  return at;
}

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/**
 * Text from the answer made fit to show: format characters written as `\u{..}` escapes, control
 * and bidi characters too (boundDetail escapes them), then cut to `max` with an ellipsis.
 */
export function shownText(value: string, max: number): string {
  const visible = value.replace(
    FORMAT,
    (ch) => `\\u{${ch.codePointAt(0)?.toString(16).padStart(2, "0")}}`,
  );
  return boundDetail(visible, max);
}

function dnsNamesOf(
  value: unknown,
  problems: string[],
): { readonly kept: string[]; readonly more: number } {
  if (value === undefined || value === null) return { kept: [], more: 0 };
  if (!Array.isArray(value)) {
    problems.push("dns_names is not a list");
    return { kept: [], more: 0 };
  }
  const kept: string[] = [];
  let notText = 0;
  for (const name of value.slice(0, MAX_ISSUANCE_NAMES)) {
    if (typeof name === "string") kept.push(shownText(name, MAX_DNS_NAME));
    else notText++;
  }
  if (notText > 0) problems.push(`dns_names holds ${notText} entries that are not text`);
  return { kept, more: Math.max(0, value.length - MAX_ISSUANCE_NAMES) };
}

/** The issuer's friendly name, else its distinguished name, else its operator's name. */
function issuerOf(value: unknown): string | undefined {
  const issuer = issuerSchema.safeParse(value);
  if (!issuer.success) return undefined;
  const { friendly_name, name, operator } = issuer.data;
  const found = friendly_name ?? name ?? operator?.name;
  return found === undefined ? undefined : shownText(found, MAX_ISSUER_TEXT);
}

/** Revoked when `revoked` is true or the revocation has a time; the time when it reads. */
function revocationOf(
  fields: Entry,
  problems: string[],
): { readonly revoked: boolean; readonly at: Date | undefined } {
  const revocation = revocationSchema.safeParse(fields.revocation);
  const time = revocation.success ? revocation.data.time : undefined;
  const hasTime = time !== undefined && time !== null;
  const revoked = fields.revoked === true || hasTime;
  if (!hasTime) return { revoked, at: undefined };
  const at = readDate(time);
  if (at instanceof Date) return { revoked, at };
  problems.push(`revocation.time ${at}`);
  return { revoked, at: undefined };
}
