import type { HttpRequest } from "@azure/functions";
import { IDEMPOTENCY_HEADER, idempotencyKeyHash, scopeOf } from "../core/runs/idempotencyKey.js";
import type { Caller } from "./auth/callerOf.js";
import { FUNCTION_KEY_PARAMETER } from "./parseQuery.js";

/** The header a function key arrives in, when not as `?code=`. */
const FUNCTION_KEY_HEADER = "x-functions-key";

/**
 * Whose keys a request's Idempotency-Key is one of (core/runs/idempotencyKey.ts scopeOf): the
 * Entra ID caller's object id, else the function key the request presented (header or `?code=`).
 */
export function callerScopeOf(request: HttpRequest, caller: Caller): string {
  return scopeOf(
    caller,
    request.headers.get(FUNCTION_KEY_HEADER) ?? request.query.get(FUNCTION_KEY_PARAMETER),
  );
}

/**
 * The request's Idempotency-Key, as the hash the run store files it under (scoped to its
 * caller); undefined when the header is absent; a key that breaks the rules is a 400.
 */
export function idempotencyKeyOf(request: HttpRequest, caller: Caller): string | undefined {
  const value = request.headers.get(IDEMPOTENCY_HEADER);
  if (value === null) return undefined;
  return idempotencyKeyHash(value, callerScopeOf(request, caller));
}
