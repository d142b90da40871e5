/**
 * The shapes a secret takes in text that reaches certsched: as we send it (raw in a header or a
 * JSON string, form-encoded in a token request) and as servers commonly echo it back (URL- or
 * form-encoded, base64, base64url, JSON-escaped, wrapped across lines, or cut in two).
 *
 * Every form is stored without whitespace, and whitespace in a text is skipped while a form is
 * matched against it, so a form split by spaces or line breaks is still found.
 */

/**
 * Fewest characters (not counting whitespace) a secret may have. Shorter values cannot be told
 * apart from ordinary words, so they could not be redacted without mangling every message:
 * settings and the Key Vault reader refuse them instead (README, "Secrets").
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * A secret of at least twice this length is also redacted by halves, each half wherever it
 * appears on its own: an echo that quotes it in two pieces with text between them still shows
 * at most half of it.
 */
export const MIN_HALF_LENGTH = 8;

const WHITESPACE = /\s+/g;

/** Characters of `value` that count towards MIN_SECRET_LENGTH (all but whitespace). */
export function significantLength(value: string): number {
  return value.replace(WHITESPACE, "").length;
}

/**
 * Whether a UTF-16 code unit is whitespace as `\s` means it: the characters dropped from every
 * form, and skipped in a text while a form is matched against it.
 */
export function isWhitespace(code: number): boolean {
  if (code > 0x20 && code < 0xa0) return false;
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function compactForm(form: string): string {
  return form.replace(WHITESPACE, "");
}

const ESCAPE = /%[0-9A-F]{2}/g;

/**
 * The part of base64(prefix + value) that depends on `value` alone, for a prefix of `offset`
 * bytes (0, 1 or 2): a secret inside a longer base64 text (`id:secret` in a Basic header, a
 * JSON document) is encoded at one of three alignments. Characters that mix in a neighbour's
 * bits, and the padding, are left out, so this one string is found whatever surrounds it.
 */
function base64Core(bytes: Buffer, offset: 0 | 1 | 2): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
  const start = [0, 2, 3][offset] as number;
  const end = Math.floor(((offset + bytes.length) * 8) / 6);
  return encoded.slice(start, end);
}

function encodings(value: string): string[] {
  const forms = [value];
  const json = JSON.stringify(value).slice(1, -1);
  // Some serializers also escape "/" and everything beyond ASCII (`\u00e9`, in either case).
  const escaped = (hex: (code: number) => string) =>
    json.replace(/[\u007f-\uffff]/g, (c) => `\\u${hex(c.charCodeAt(0))}`);
  forms.push(
    json,
    json.replaceAll("/", "\\/"),
    escaped((code) => code.toString(16).padStart(4, "0")),
    escaped((code) => code.toString(16).padStart(4, "0").toUpperCase()),
  );
  forms.push(new URLSearchParams({ v: value }).toString().slice("v=".length));
  try {
    forms.push(encodeURIComponent(value));
  } catch {
    // A lone surrogate cannot be URL-encoded by anyone, so it is never echoed that way either.
  }
  const bytes = Buffer.from(value, "utf8");
  // Whole, padding included, so an encoding of the secret alone leaves nothing behind.
  const base64 = bytes.toString("base64");
  forms.push(base64, base64.replaceAll("+", "-").replaceAll("/", "_"));
  for (const offset of [0, 1, 2] as const) {
    const core = base64Core(bytes, offset);
    forms.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return forms;
}

/**
 * Every compact form of `value` to search for: each encoding above and, for a long secret, its
 * two halves. Empty when `value` is too short to redact (see MIN_SECRET_LENGTH).
 */
export function secretForms(value: string): string[] {
  if (significantLength(value) < MIN_SECRET_LENGTH) return [];
  const forms = new Set<string>();
  for (const form of encodings(value)) {
    const c = compactForm(form);
    if (c.length < MIN_SECRET_LENGTH) continue;
    forms.add(c);
    // Encoders write escapes in upper case; some servers echo them in lower case.
    forms.add(c.replace(ESCAPE, (hex) => hex.toLowerCase()));
  }
  const raw = compactForm(value);
  const half = Math.floor(raw.length / 2);
  if (half >= MIN_HALF_LENGTH) {
    forms.add(raw.slice(0, half));
    forms.add(raw.slice(half));
  }
  return [...forms];
}
