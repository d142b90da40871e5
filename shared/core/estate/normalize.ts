/**
 * Values from Resource Graph and the vaults made into one form each: a thumbprint, an instant, a
 * host name. Every function takes anything and answers undefined for what it cannot read; none
 * throws, so one odd row never stops a report.
 */

/** Longest text read as a date or a thumbprint (anything longer is not one). */
const MAX_INPUT = 100;

/** SHA-1 thumbprint as Azure shows it: 40 upper-case hex, from any case, spaces, colons, hyphens. */
export function thumbprintOf(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_INPUT) return undefined;
  const hex = value.replace(/[ :-]/g, "");
  return /^[0-9a-fA-F]{40}$/.test(hex) ? hex.toUpperCase() : undefined;
}

/** The earliest and latest instants kept: 1970-01-01 and the last millisecond of 9999. */
export const MIN_INSTANT_MS = 0;
export const MAX_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * Below this a number is Unix seconds (up to the year 5138), from it on milliseconds (from
 * 1973): no date Azure writes falls in the milliseconds left out.
 */
export const SECONDS_BELOW = 1e11;

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

function bounded(ms: number): Date | undefined {
  return Number.isFinite(ms) && ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS
    ? new Date(ms)
    : undefined;
}

/** A UTC instant from fields, or undefined when a field is out of range (Feb 30, 25:00). */
function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number | undefined {
  if (y < 1000 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  return date.getUTCDate() === d ? date.getTime() : undefined;
}

/** "+05:30", "-0800", "Z", "GMT", "UTC" or nothing: minutes east of UTC. */
function offsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || /^(z|gmt|utc)$/i.test(zone)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = Number(m[3]);
  if (hours > 23 || minutes > 59) return undefined;
  return (m[1] === "-" ? -1 : 1) * (hours * 60 + minutes);
}

function withZone(local: number | undefined, zone: string | undefined): number | undefined {
  const offset = offsetMinutes(zone);
  return local === undefined || offset === undefined ? undefined : local - offset * 60_000;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

function isoMs(text: string): number | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const ms = fraction === undefined ? 0 : Number(fraction.padEnd(3, "0").slice(0, 3));
  const local = utc(
    Number(y),
    Number(mo),
    Number(d),
    Number(h ?? 0),
    Number(mi ?? 0),
    Number(s ?? 0),
    ms,
  );
  return withZone(local, zone);
}

const RFC1123 =
  /^(?:[a-z]{3},\s*)?(\d{1,2})\s+([a-z]{3})\s+(\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s+(gmt|utc|z|[+-]\d{4})$/i;

function rfc1123Ms(text: string): number | undefined {
  const m = RFC1123.exec(text);
  if (!m) return undefined;
  const [, d, monthName, y, h, mi, s, zone] = m;
  const mo = MONTHS.indexOf(String(monthName).toLowerCase()) + 1;
  if (mo === 0) return undefined;
  return withZone(utc(Number(y), mo, Number(d), Number(h), Number(mi), Number(s ?? 0)), zone);
}

/** App Service's "12/11/2026 10:00:00 AM": US month/day, UTC; without AM/PM a 24-hour clock. */
const US = /^(\d{1,2})\/(\d{1,2})\/(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([ap]m))?$/i;

function usMs(text: string): number | undefined {
  const m = US.exec(text);
  if (!m) return undefined;
  const [, mo, d, y, h, mi, s, half] = m;
  let hour = Number(h);
  if (half !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (half.toLowerCase() === "pm" ? 12 : 0);
  }
  return utc(Number(y), Number(mo), Number(d), hour, Number(mi), Number(s ?? 0));
}

/** Unix seconds below SECONDS_BELOW, milliseconds from it on. */
function epochMs(n: number): number | undefined {
  if (!Number.isFinite(n) || n < 0) return undefined;
  return n < SECONDS_BELOW ? Math.round(n * 1000) : Math.round(n);
}

function textMs(text: string): number | undefined {
  if (/^\d{1,16}$/.test(text)) return epochMs(Number(text));
  const json = /^\/Date\((\d{1,16})(?:[+-]\d{4})?\)\/$/.exec(text);
  if (json) return Number(json[1]);
  return isoMs(text) ?? rfc1123Ms(text) ?? usMs(text);
}

/**
 * An instant from any date format Azure has written: ISO 8601 (Z, an offset, or no zone: UTC;
 * up to 9 fraction digits), "/Date(ms)/", Unix seconds or milliseconds (numbers or digit
 * strings), RFC 1123, App Service's US "12/11/2026 10:00:00 AM". Undefined for anything else,
 * and for an instant before 1970 or after 9999.
 */
export function instantOf(value: unknown): Date | undefined {
  if (value instanceof Date) return bounded(value.getTime());
  if (typeof value === "number") {
    const ms = epochMs(value);
    return ms === undefined ? undefined : bounded(ms);
  }
  if (typeof value !== "string" || value.length > MAX_INPUT) return undefined;
  const ms = textMs(value.trim());
  return ms === undefined ? undefined : bounded(ms);
}

/** Longest host name (RFC 1035), without the trailing dot. */
export const MAX_HOST_NAME = 253;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A host name in one form: lower-case, without a trailing dot; ASCII letters, digits, hyphens
 * and dots, labels of 1 to 63 that neither start nor end with a hyphen, `*` only as the whole
 * first label; at most MAX_HOST_NAME. Anything else (spaces, control characters, HTML,
 * Unicode) is undefined.
 */
export function hostNameOf(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_HOST_NAME + 1) return undefined;
  // ASCII is checked before lower-casing: "\u212a" (Kelvin) lower-cases to an ASCII "k".
  if (!/^[A-Za-z0-9.*-]+$/.test(value)) return undefined;
  const name = value.toLowerCase().replace(/\.$/, "");
  if (name.length === 0 || name.length > MAX_HOST_NAME) return undefined;
  const labels = name.split(".");
  const rest = labels[0] === "*" ? labels.slice(1) : labels;
  if (rest.length === 0) return undefined;
  return rest.every((label) => LABEL.test(label)) ? name : undefined;
}
