/**
 * Values that must never reach a log line, an error or a response: the API key, the client
 * secret and every access token issued to us. They are registered the moment we hold them, so
 * text from elsewhere (an upstream that echoes a token in its error body) can be cleaned before
 * anyone sees it.
 */
const sensitive = new Set<string>();

/** Shorter values would redact ordinary words; real secrets and tokens are far longer. */
const MIN_SECRET_LENGTH = 6;

export function registerSecret(value: string | undefined): void {
  if (value && value.length >= MIN_SECRET_LENGTH) sensitive.add(value);
}

export const REDACTED = "[REDACTED]";

/**
 * Replaces `value` in `text` without registering it: a caller's secret (a certificate password)
 * held for one request only. A value too short to replace safely withholds the whole text.
 */
export function redactValue(text: string, value: string): string {
  if (value === "" || !text.includes(value)) return text;
  return value.length >= MIN_SECRET_LENGTH
    ? text.split(value).join(REDACTED)
    : "[detail withheld: it contains a secret of the request]";
}

/** Replaces every registered secret, and anything shaped like a bearer token, in `text`. */
export function redact(text: string): string {
  let out = text;
  for (const value of sensitive) {
    if (out.includes(value)) out = out.split(value).join(REDACTED);
  }
  // Tokens we were never handed (another caller's) still look like bearer tokens or JWTs.
  return out
    .replace(/\b(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi, `$1${REDACTED}`)
    .replace(/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, REDACTED);
}
