/**
 * Access tokens recognised by their shape, for text that may hold tokens this process was never
 * handed: rows another process wrote (the function app's, read by the CLI, or the other way
 * round), or an upstream quoting another caller's token. The registry (shared/lib/redact/redact.ts) knows
 * the tokens issued to this process; these shapes cover the rest.
 *
 * The shapes are tight on purpose, so that no certificate name or domain is ever mistaken for a
 * token: a compact JWS or JWE counts only when its first segment decodes to a JOSE header (a
 * JSON object naming its `alg`), which no DNS label or certificate name does by chance.
 */

/**
 * Runs of the characters compact JOSE is written in (base64url and "."), long enough to hold
 * the shortest token a header naming its `alg` can start: `{"alg":""}` is `eyJhbGciOiIifQ`
 * (14), then two dots and empty parts. A bound of 24 (`{"alg":"none"}` and `.e30.`) let
 * `eyJhbGciOiJkaXIifQ.e30.` (alg "dir", 23) through: a property found it at its 71,444th run.
 */
const JOSE_RUN = /[A-Za-z0-9_.-]{16,}/g;

/**
 * Longest header segment taken for one, in characters. Entra ID's are about 120; a JWE header
 * with an ephemeral key about 350. The bound keeps the search linear in practice: a hostile
 * text packed with "eyJ" costs at most this much decoding per candidate.
 */
const MAX_HEADER = 512;

/** How many segments a compact token has: JWS 3 (RFC 7515 7.1), JWE 5 (RFC 7516 7.1). */
const JWS_SEGMENTS = 3;
const JWE_SEGMENTS = 5;

/**
 * The opaque tokens of the contract simulator's identity provider (sim/identity.ts), which the
 * CLI's sandbox (`certsched sandbox`) runs: `simtok-` and 24 random bytes in hex.
 */
const SANDBOX_TOKEN = /simtok-[0-9a-f]{48}/g;

/**
 * The JOSE header `segment` (base64url) decodes to, or undefined: every JOSE header is a JSON
 * object naming its `alg`, so its base64url begins `eyJ` (`{"`).
 */
function joseHeader(segment: string): { enc?: unknown } | undefined {
  if (!segment.startsWith("eyJ") || segment.length > MAX_HEADER) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) return undefined;
  return typeof (header as { alg?: unknown }).alg === "string" ? header : undefined;
}

/**
 * Most headers parsed as JSON per segment. The cheap checks in `mayBeHeader` leave few
 * candidates; this caps what a text crafted to pass them costs (parsing and failing is the
 * expensive part), so the search stays linear. Such a text could hide a token behind more
 * look-alikes than this; the registry still finds every token issued to this process.
 */
const MAX_PARSES = 8;

/**
 * Whether `candidate` (from an "eyJ" to the end of its segment) can be a JSON object, looking
 * at its last characters only: a JSON object ends with "}", and JOSE headers carry no trailing
 * space. Constant time, no exception.
 */
function mayBeHeader(candidate: string): boolean {
  const length = candidate.length;
  if (length % 4 === 1) return false; // no base64url text has this length
  const last = Buffer.from(candidate.slice(length - 4 + ((4 - (length % 4)) % 4)), "base64url");
  return last.length > 0 && last[last.length - 1] === 0x7d;
}

/**
 * Where a token starts in `segment` and how many segments it spans, if one starts there: the
 * header may be glued to what precedes it ("xeyJhbGci..."), so each "eyJ" near the end counts.
 */
function tokenIn(segment: string): { at: number; segments: number } | undefined {
  let parses = 0;
  let at = segment.indexOf("eyJ", Math.max(0, segment.length - MAX_HEADER));
  for (; at >= 0 && parses < MAX_PARSES; at = segment.indexOf("eyJ", at + 1)) {
    const candidate = segment.slice(at);
    if (!mayBeHeader(candidate)) continue;
    parses += 1;
    const header = joseHeader(candidate);
    if (header) return { at, segments: header.enc === undefined ? JWS_SEGMENTS : JWE_SEGMENTS };
  }
  return undefined;
}

/** One run of JOSE characters with every compact token in it replaced. */
function redactRun(run: string, replacement: string): string {
  const segments = run.split(".");
  if (segments.length < JWS_SEGMENTS) return run;
  let out = "";
  let i = 0;
  while (i < segments.length) {
    const segment = segments[i] as string;
    const found = i + JWS_SEGMENTS <= segments.length ? tokenIn(segment) : undefined;
    if (!found) {
      out += i + 1 < segments.length ? `${segment}.` : segment;
      i += 1;
      continue;
    }
    // A JWE cut short is still redacted up to the end of the run.
    const end = Math.min(segments.length, i + found.segments);
    out += segment.slice(0, found.at) + replacement + (end < segments.length ? "." : "");
    i = end;
  }
  return out;
}

/** `text` with every compact JOSE token (a JWS, a JWE) replaced by `replacement`. */
function redactJose(text: string, replacement: string): string {
  if (!text.includes("eyJ")) return text;
  return text.replace(JOSE_RUN, (run) => (run.includes("eyJ") ? redactRun(run, replacement) : run));
}

/** `text` with every token of a known shape replaced by `replacement`. */
export function redactTokenShapes(text: string, replacement: string): string {
  const jose = redactJose(text, replacement);
  return jose.includes("simtok-") ? jose.replace(SANDBOX_TOKEN, replacement) : jose;
}
