import { createHash } from "node:crypto";
import type { HttpRequest } from "@azure/functions";
import { ValidationError } from "../errors.js";

/** The header a client sends so that repeating POST /api/renewals returns the same run. */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** How long a key names its run (issue 13: "the same key within 24 h returns the same run"). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/** Longest key accepted, in characters: a UUID is 36, a ULID 26; 128 leaves room for prefixes. */
export const MAX_KEY_LENGTH = 128;

/** Letters, digits and - _ . : ~ + / = (UUIDs, ULIDs, base64 and base64url all fit). */
const KEY = /^[A-Za-z0-9._:~+/=-]+$/;

/**
 * The request's Idempotency-Key, as the hash the run store files it under (the key itself is
 * never stored or echoed: it is the caller's text), or undefined when the header is absent.
 * An empty, too long or oddly-charactered key is a 400 naming the header and the rule.
 */
export function idempotencyKeyOf(request: HttpRequest): string | undefined {
  const value = request.headers.get(IDEMPOTENCY_HEADER);
  if (value === null) return undefined;
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
  return createHash("sha256").update(value, "utf8").digest("hex");
}
