import { OPERATOR } from "../../shared/edge/auth/roles.js";
/** x-ms-client-principal values as App Service Authentication writes them, for tests. */

export const OID = "http://schemas.microsoft.com/identity/claims/objectidentifier";
export const ROLE_URI = "http://schemas.microsoft.com/ws/2008/06/identity/claims/role";
export const NAME_URI = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name";

export interface PrincipalInit {
  readonly id?: string;
  readonly name?: string;
  readonly roles?: readonly string[];
}

/** The JSON the platform encodes: claims as { typ, val }, with the claim types it used. */
export function principalJson(init: PrincipalInit = {}): Record<string, unknown> {
  const claims = [
    { typ: "aud", val: "api://certsched" },
    { typ: OID, val: init.id ?? "00000000-0000-0000-0000-0000000000aa" },
    ...(init.name === undefined ? [] : [{ typ: NAME_URI, val: init.name }]),
    ...(init.roles ?? []).map((val) => ({ typ: "roles", val })),
  ];
  return { auth_typ: "aad", claims, name_typ: NAME_URI, role_typ: "roles" };
}

export function encodePrincipal(json: unknown): string {
  return Buffer.from(JSON.stringify(json), "utf8").toString("base64");
}

export function principalHeader(init: PrincipalInit = {}): string {
  return encodePrincipal(principalJson(init));
}

/**
 * A principal the platform would accept but for `bytes` inside its name claim: with the
 * operator role, so a decoder that replaced them with U+FFFD would let the caller in.
 */
export function invalidUtf8Principal(bytes: readonly number[] = [0xff]): string {
  const [before, after] = JSON.stringify(
    principalJson({ id: "oid-utf8", name: "ada\u0000", roles: [OPERATOR] }),
  ).split("\\u0000") as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]).toString(
    "base64",
  );
}

/** The environment App Service sets when authsettingsV2 is on. */
export const EASY_AUTH_ON = { WEBSITE_AUTH_ENABLED: "True" } as const;
