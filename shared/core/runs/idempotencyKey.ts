import { createHash } from "node:crypto";
import { ValidationError } from "../../lib/errors.js";
import { HOUR_MS } from "../../lib/time.js";

/** The header a client sends so that repeating POST /api/renewals returns the same run. */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** How long a key names its run: the same key within 24 h returns the same run. */
export const IDEMPOTENCY_WINDOW_MS = 24 * HOUR_MS;

/** Longest key accepted, in characters: a UUID is 36, a ULID 26; 128 leaves room for prefixes. */
export const MAX_KEY_LENGTH = 128;

/** Letters, digits and - _ . : ~ + / = (UUIDs, ULIDs, base64 and base64url all fit). */
const KEY = /^[A-Za-z0-9._:~+/=-]+$/;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** Who asked, as far as the scope of a key needs: an Entra ID object id, or a function key. */
export type ScopeCaller =
  | { readonly kind: "function-key" }
  | { readonly kind: "entra"; readonly id: string };

/**
 * Whose keys a request's Idempotency-Key is one of: a key names a run only for the caller who
 * first used it, or a second caller sending it would get the first one's run, and
 * nothing queued for them. An Entra ID caller is its object id (stable, unlike a name). A
 * function-key caller is the key it presented (`functionKey`: the host checked it): callers
 * given keys of their own have scopes of their own; only a hash of the key takes part, never the
 * key. No key at all (local `func start`, which checks none) is one shared scope: such callers
 * are indistinguishable.
 */
export function scopeOf(caller: ScopeCaller, functionKey: string | null | undefined): string {
  if (caller.kind === "entra") return `entra:${caller.id}`;
  return functionKey ? `function-key:${sha256(functionKey)}` : ANONYMOUS_SCOPE;
}

/** The scope of callers with neither an identity nor a function key (local `func start`). */
export const ANONYMOUS_SCOPE = "anonymous";

/** What a key is filed under: JSON framing, so no scope and key splice into another pair. */
export function keyHashOf(scope: string, key: string): string {
  return sha256(JSON.stringify([scope, key]));
}

/**
 * An Idempotency-Key header's value, as the hash the run store files it under: SHA-256 of the
 * caller's scope (scopeOf) and the key, so one key of two callers is two entries. The key itself
 * is never stored or echoed: it is the caller's text. An empty, too long or oddly-charactered
 * key is a 400 naming the header and the rule.
 */
export function idempotencyKeyHash(value: string, scope: string): string {
  // Headers.get joins repeated headers with ", ": a comma is not in the charset, so two keys
  // are refused by the same rule.
  const problem =
    value.length === 0
      ? "must not be empty"
      : value.length > MAX_KEY_LENGTH
        ? `must be at most ${MAX_KEY_LENGTH} characters (it has ${value.length})`
        : !KEY.test(value)
          ? "must hold only letters, digits and - _ . : ~ + / = (one key, no spaces), e.g. a UUID"
          : undefined;
  if (problem)
    throw new ValidationError("request", [{ name: IDEMPOTENCY_HEADER, message: problem }]);
  return keyHashOf(scope, value);
}
