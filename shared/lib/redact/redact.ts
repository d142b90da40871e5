import { isWhitespace, MIN_SECRET_LENGTH, secretForms, significantLength } from "./secretForms.js";
import { redactTokenShapes } from "./tokenShapes.js";

/**
 * Values that must never reach a log line, an error, a response, the ledger or a webhook: the
 * API key, the client secret, the webhook URL's secret parts and every access token issued to
 * us. They are registered the moment we hold them, so text from elsewhere (an upstream that
 * echoes a token, whatever its status) can be cleaned before anyone sees it. Each is searched
 * for in every form shared/lib/redact/secretForms.ts lists, precomputed once at registration.
 */

export const REDACTED = "[REDACTED]";

/**
 * Which bound a registered value lives under:
 * - "configured": the API key, the client secret (direct or from Key Vault), the webhook's
 *   secret parts. Re-registered every time they are used, so the ones in use are always the
 *   newest and only values rotated away long ago are ever evicted.
 * - "issued": access tokens. Each is registered once, when issued; the oldest go first.
 */
export type SecretKind = "configured" | "issued";

/** How many values of each kind the registry keeps (oldest first out). */
export interface RegistryLimits {
  /** Default 32: a process holds about six at a time (two secrets, webhook parts, a rotation). */
  readonly configured: number;
  /**
   * Default 64: tokens are cached about an hour and issued two at a time, so 64 spans well over
   * a day of sweeps; a token evicted that long after it was issued has expired.
   */
  readonly issued: number;
}

/** Forms are looked up by a hash of their first MIN_SECRET_LENGTH characters. */
const WINDOW = MIN_SECRET_LENGTH;
const BASE = 31;
let power = 1;
for (let i = 1; i < WINDOW; i++) power = Math.imul(power, BASE);
/** BASE ** (WINDOW - 1), modulo 2 ** 32: what the oldest character weighs in the window. */
const OLDEST_WEIGHT = power >>> 0;

function windowHash(form: string): number {
  let hash = 0;
  for (let i = 0; i < WINDOW; i++) hash = (Math.imul(hash, BASE) + form.charCodeAt(i)) >>> 0;
  return hash;
}

/** Where `form` ends in `text` if it starts at `start`, whitespace skipped; -1 if it does not. */
function matchEnd(text: string, start: number, form: string): number {
  let i = start;
  for (let j = 0; j < form.length; i++) {
    if (i >= text.length) return -1;
    const code = text.charCodeAt(i);
    if (isWhitespace(code)) continue;
    if (code !== form.charCodeAt(j)) return -1;
    j++;
  }
  return i;
}

/**
 * Finds every form of a set of secrets in a text in one pass, in linear time and constant extra
 * memory (a hostile upstream may send 64 MiB): a rolling hash over the last WINDOW characters
 * other than whitespace picks the few forms worth comparing at each position.
 */
class FormMatcher {
  readonly #byHash = new Map<number, string[]>();

  constructor(forms: Iterable<string>) {
    for (const form of forms) {
      const key = windowHash(form);
      const list = this.#byHash.get(key);
      if (list) list.push(form);
      else this.#byHash.set(key, [form]);
    }
    // Longest first, so a whole secret wins over one of its halves at the same position.
    for (const list of this.#byHash.values()) list.sort((a, b) => b.length - a.length);
  }

  /** `text` with every range that held a form (whitespace inside it included) replaced. */
  replace(text: string, replacement: string): string {
    if (this.#byHash.size === 0 || text.length < WINDOW) return text;
    const codes = new Uint16Array(WINDOW);
    const origins = new Uint32Array(WINDOW);
    let hash = 0;
    let seen = 0;
    let out = "";
    let copied = 0; // text before this index is in `out` already, or replaced
    let found = false;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (isWhitespace(code)) continue;
      const slot = seen % WINDOW;
      if (seen >= WINDOW) {
        hash = (hash - Math.imul(codes[slot] as number, OLDEST_WEIGHT)) >>> 0;
      }
      hash = (Math.imul(hash, BASE) + code) >>> 0;
      codes[slot] = code;
      origins[slot] = i;
      seen++;
      if (seen < WINDOW) continue;
      const candidates = this.#byHash.get(hash);
      if (candidates === undefined) continue;
      const start = origins[seen % WINDOW] as number; // the window's oldest character
      for (const form of candidates) {
        const end = matchEnd(text, start, form);
        if (end < 0) continue;
        if (start >= copied) out += `${text.slice(copied, start)}${replacement}`;
        copied = Math.max(copied, end);
        found = true;
        break;
      }
    }
    return found ? out + text.slice(copied) : text;
  }
}

const DEFAULT_LIMITS: RegistryLimits = { configured: 32, issued: 64 };

/**
 * The registry behind redact(): bounded per kind, oldest first out. A process has one
 * (`secrets` below); tests build their own to pin the bounds.
 */
export class SecretRegistry {
  readonly #limits: RegistryLimits;
  readonly #values: Record<SecretKind, Map<string, readonly string[]>> = {
    configured: new Map(),
    issued: new Map(),
  };
  #matcher: FormMatcher | undefined;

  constructor(limits: RegistryLimits = DEFAULT_LIMITS) {
    this.#limits = limits;
  }

  /**
   * Registers `value` (again: that makes it the newest of its kind). A value with fewer than
   * MIN_SECRET_LENGTH characters besides whitespace is not registered: settings and the Key
   * Vault reader refuse such secrets, and tokens are far longer.
   */
  register(value: string | undefined, kind: SecretKind = "configured"): void {
    if (!value || significantLength(value) < MIN_SECRET_LENGTH) return;
    const values = this.#values[kind];
    const known = values.get(value);
    values.delete(value);
    values.set(value, known ?? secretForms(value));
    // Used again (the API key, on every call): only its age changed, the matcher still holds.
    if (known) return;
    for (const oldest of values.keys()) {
      if (values.size <= this.#limits[kind]) break;
      values.delete(oldest);
    }
    this.#matcher = undefined;
  }

  /** How many values of `kind` are held now. */
  size(kind: SecretKind): number {
    return this.#values[kind].size;
  }

  /** Replaces every registered secret, in every form, and anything shaped like a bearer token. */
  redact(text: string): string {
    // Whatever follows "Bearer " in a message (an Authorization header quoted back by an
    // upstream) is taken for a token, whatever its shape.
    return this.redactSecrets(text).replace(
      /\b(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi,
      `$1${REDACTED}`,
    );
  }

  /**
   * Replaces every registered secret, in every form, and every token by its shape (a JWS, a
   * JWE, the sandbox's): tokens we were never handed (another caller's, or another process's:
   * rows the function app wrote, read by the CLI) included. Not the word after "Bearer": in a
   * record's data (a certificate's name, "Bearer Token Service") that is no sign of a token, and
   * cutting it would make the name another.
   */
  redactSecrets(text: string): string {
    this.#matcher ??= new FormMatcher(
      [...this.#values.configured.values(), ...this.#values.issued.values()].flat(),
    );
    return redactTokenShapes(this.#matcher.replace(text, REDACTED), REDACTED);
  }
}

/** The process's registry: what redact() and registerSecret() use. */
const secrets = new SecretRegistry();

/** Registers a configured secret (API key, client secret, webhook parts); see SecretKind. */
export function registerSecret(value: string | undefined): void {
  secrets.register(value, "configured");
}

/** Registers an access token we were issued; see SecretKind. */
export function registerToken(value: string | undefined): void {
  secrets.register(value, "issued");
}

/** Replaces every registered secret, in every form, and anything shaped like a bearer token. */
export function redact(text: string): string {
  return secrets.redact(text);
}

/**
 * Replaces every registered secret and every token by its shape, but not the word after
 * "Bearer" (SecretRegistry.redactSecrets): for records' data (the service's records at their
 * entry, rows read back), where a name may say "Bearer" and is no token.
 */
export function redactSecrets(text: string): string {
  return secrets.redactSecrets(text);
}

/** Said instead of a text that holds a secret too short to cut out of it. */
export const WITHHELD = "[detail withheld: it contains a secret of the request]";

/**
 * Replaces `value`, in every form, in `text` without registering it: a caller's secret (a
 * certificate password) held for one request only. A value too short to replace safely
 * withholds the whole text when the text contains it, or with `tooShort: "keep"` leaves the text
 * as it is (a confirmation: "Certificate a is scheduled" holds a one-letter password by chance).
 */
export function redactValue(
  text: string,
  value: string,
  tooShort: "withhold" | "keep" = "withhold",
): string {
  if (value === "") return text;
  if (significantLength(value) < MIN_SECRET_LENGTH) {
    return tooShort === "withhold" && text.includes(value) ? WITHHELD : text;
  }
  return new FormMatcher(secretForms(value)).replace(text, REDACTED);
}
