import { z } from "zod";
import { ValidationError } from "../../lib/errors.js";

/** The header App Service Authentication (Easy Auth) sets on every authenticated request. */
export const PRINCIPAL_HEADER = "x-ms-client-principal";

/** An Entra ID caller, as the platform validated it. */
export interface ClientPrincipal {
  /** Identity provider, e.g. "aad". */
  readonly authType: string;
  /** Object id (oid) of the user or service principal: stable, unlike a name. */
  readonly id: string;
  /** The display name or UPN for a person, the application id for a service. */
  readonly name: string;
  /** App role values the token carries, e.g. ["certsched.Reader"]. */
  readonly roles: readonly string[];
}

/** The header's JSON as the platform writes it (claims as { typ, val } pairs). */
const wirePrincipal = z.object({
  auth_typ: z.string().min(1),
  claims: z.array(z.object({ typ: z.string(), val: z.string() })),
  name_typ: z.string().optional(),
  role_typ: z.string().optional(),
});
type WirePrincipal = z.infer<typeof wirePrincipal>;

/** Real headers carry a few KiB of claims; anything far larger is not the platform's. */
const MAX_HEADER_CHARS = 64 * 1024;
/** Standard base64, as the platform encodes it (padding optional). */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/**
 * Throws on bytes that are not UTF-8: a lenient decode turns them into U+FFFD and a forged
 * principal into a valid-looking one.
 */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The bytes of `text` when it is base64 written one way only: padding, if any, completes the
 * last quantum, and the bits past the data are zero. Buffer.from accepts other spellings of
 * the same bytes (and stops at stray padding); the platform never writes them.
 */
function strictBase64(text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined;
  const padded = text.endsWith("=");
  if (padded ? text.length % 4 !== 0 : text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, "base64");
  const canonical = bytes.toString("base64");
  return (padded ? canonical : canonical.replace(/=+$/, "")) === text ? bytes : undefined;
}

// Entra ID tokens name the same claim either in the short JWT form or as a URI, depending on
// how the platform maps them; accept both, short form first.
const OBJECT_ID = ["http://schemas.microsoft.com/identity/claims/objectidentifier", "oid"];
const ROLE = ["roles", "http://schemas.microsoft.com/ws/2008/06/identity/claims/role"];
const NAME = ["name", "preferred_username", "appid", "azp"];

function malformed(rule: string): ValidationError {
  // Never quote the header: it is the caller's identity, and a forged one is attacker text.
  return new ValidationError(`${PRINCIPAL_HEADER} header`, [
    { name: PRINCIPAL_HEADER, message: rule },
  ]);
}

function claim(wire: WirePrincipal, types: readonly string[]): string | undefined {
  for (const typ of types) {
    const found = wire.claims.find((c) => c.typ === typ && c.val.trim() !== "");
    if (found) return found.val;
  }
  return undefined;
}

/**
 * Reads the principal from the header's value. Anything that is not the platform's base64 JSON
 * is a ValidationError (400) naming the header and the rule, never a 500.
 */
export function parseClientPrincipal(header: string): ClientPrincipal {
  const text = header.trim();
  if (text.length > MAX_HEADER_CHARS) {
    throw malformed(`must be at most ${MAX_HEADER_CHARS} characters`);
  }
  const bytes = strictBase64(text);
  if (bytes === undefined) throw malformed("must be base64");
  let decoded: string;
  try {
    decoded = UTF8.decode(bytes);
  } catch {
    throw malformed("must be base64-encoded UTF-8 JSON");
  }
  let json: unknown;
  try {
    json = JSON.parse(decoded);
  } catch {
    throw malformed("must be base64-encoded JSON");
  }
  const parsed = wirePrincipal.safeParse(json);
  if (!parsed.success) {
    throw malformed("must be a JSON object with auth_typ and claims [{ typ, val }]");
  }
  const wire = parsed.data;
  const id = claim(wire, OBJECT_ID);
  if (id === undefined) throw malformed("must carry an object id claim (oid)");
  const roleTypes = wire.role_typ ? [wire.role_typ, ...ROLE] : ROLE;
  const roles = [
    ...new Set(wire.claims.filter((c) => roleTypes.includes(c.typ)).map((c) => c.val)),
  ];
  const name = claim(wire, wire.name_typ ? [wire.name_typ, ...NAME] : NAME) ?? id;
  return { authType: wire.auth_typ, id, name, roles };
}
