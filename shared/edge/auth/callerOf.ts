import type { HttpRequest } from "@azure/functions";
import { PRINCIPAL_HEADER, parseClientPrincipal } from "./clientPrincipal.js";

/** Who made a request: a holder of a function key, or an Entra ID principal with its roles. */
export type Caller =
  | { readonly kind: "function-key" }
  | {
      readonly kind: "entra";
      /** Object id (oid). */
      readonly id: string;
      readonly name: string;
      readonly roles: readonly string[];
    };

/** The platform settings read here (app/config/platform.ts: platformEnv). */
export type AuthEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * Whether App Service Authentication runs in front of the app. The platform sets
 * WEBSITE_AUTH_ENABLED=True on the app when authsettingsV2 enables it (Microsoft.Identity.Web
 * reads the same variable). Only then does the platform strip any x-ms-client-principal a client
 * sends and write its own, which is what makes the header trustworthy.
 */
export function easyAuthEnabled(env: AuthEnvironment): boolean {
  return env.WEBSITE_AUTH_ENABLED?.trim().toLowerCase() === "true";
}

/**
 * The caller of a request that reached a function (the host has already checked its key, if the
 * function asks for one). Without Easy Auth the header is ignored: anyone can send it, so it
 * proves nothing. With Easy Auth and no principal, the caller came in on a function key alone
 * (a path Easy Auth leaves open; docs/deploy.md). A malformed header is a ValidationError (400).
 */
export function callerOf(request: HttpRequest, env: AuthEnvironment): Caller {
  if (!easyAuthEnabled(env)) return { kind: "function-key" };
  const header = request.headers.get(PRINCIPAL_HEADER);
  if (header === null) return { kind: "function-key" };
  const principal = parseClientPrincipal(header);
  return { kind: "entra", id: principal.id, name: principal.name, roles: principal.roles };
}
