import type { HttpRequest } from "@azure/functions";
import { ForbiddenError } from "../../lib/errors.js";
import { type AuthEnvironment, type Caller, callerOf } from "./callerOf.js";
import { type AppRole, hasRole } from "./roles.js";

/**
 * The guard each HTTP function calls first. A function-key caller passes, as before Entra ID
 * existed: the key is the credential and the host has checked it. An Entra ID caller needs
 * `role` (Operator includes Reader). Returns the caller, for the records that name who acted.
 */
export function authorize(request: HttpRequest, role: AppRole, env: AuthEnvironment): Caller {
  const caller = callerOf(request, env);
  if (caller.kind === "entra" && !hasRole(caller.roles, role)) {
    throw new ForbiddenError(role, caller.name);
  }
  return caller;
}
