import { randomBytes } from "node:crypto";
import { type AadError, aadErrorResponse } from "./aadErrors.js";
import { json, type SimResponse } from "./response.js";

/** Which of the two resources a token is meant for (spec 4.6). */
export type TokenAudience = "management" | "vault";

export interface IdentitySettings {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  managementResource: string;
  vaultResource: string;
  tokenLifetimeSeconds: number;
}

interface IssuedToken {
  audience: TokenAudience;
  expiresAtMs: number;
}

/**
 * The identity provider's v1 client-credentials token endpoint, and the memory of what it issued
 * so the service side can check that a token is genuine, unexpired and for the right resource.
 */
export class IdentityProvider {
  readonly #tokens = new Map<string, IssuedToken>();
  readonly #issued: string[] = [];
  #secret: string;
  #secretExpired = false;

  constructor(private readonly settings: IdentitySettings) {
    this.#secret = settings.clientSecret;
  }

  get clientSecret(): string {
    return this.#secret;
  }

  /** From now on every token request of the known client fails with AADSTS7000222. */
  expireClientSecret(): void {
    this.#secretExpired = true;
  }

  /** Rotates the expected secret; the new one is valid (not expired). */
  setClientSecret(secret: string): void {
    this.#secret = secret;
    this.#secretExpired = false;
  }

  issuedTokens(): string[] {
    return [...this.#issued];
  }

  /** Answers POST {token_url}/{tenant}/oauth2/token. */
  token(tenant: string, contentType: string | undefined, body: string, now: Date): SimResponse {
    const outcome = this.#check(tenant, contentType, body);
    if ("code" in outcome) return aadErrorResponse(outcome, now);
    const issuedAt = Math.floor(now.getTime() / 1000);
    const lifetime = this.settings.tokenLifetimeSeconds;
    const accessToken = `simtok-${randomBytes(24).toString("hex")}`;
    this.#tokens.set(accessToken, {
      audience: outcome.audience,
      expiresAtMs: (issuedAt + lifetime) * 1000,
    });
    this.#issued.push(accessToken);
    // Every value is a string, numbers included (as Entra ID sends them): clients must not expect numbers.
    return json(200, {
      token_type: "Bearer",
      expires_in: String(lifetime),
      ext_expires_in: String(lifetime),
      expires_on: String(issuedAt + lifetime),
      not_before: String(issuedAt),
      resource: outcome.resource,
      access_token: accessToken,
    });
  }

  /** The token issued last for each resource (undefined: none yet). */
  newestTokens(): { management?: string; vault?: string } {
    const newest: { management?: string; vault?: string } = {};
    for (const [token, issued] of this.#tokens) newest[issued.audience] = token;
    return newest;
  }

  /** Why `token` is unacceptable for `audience` at `now`, or undefined when it is fine. */
  verify(token: unknown, audience: TokenAudience, now: Date): string | undefined {
    if (typeof token !== "string" || token === "") return "is missing";
    const issued = this.#tokens.get(token);
    if (!issued) return "is not a token issued by the identity provider";
    if (issued.audience !== audience) return `was not issued for ${this.#resourceOf(audience)}`;
    if (now.getTime() >= issued.expiresAtMs) return "has expired";
    return undefined;
  }

  // Checks in the order Entra ID reports them: tenant, parameters, client, secret, resource.
  #check(
    tenant: string,
    contentType: string | undefined,
    body: string,
  ): AadError | { audience: TokenAudience; resource: string } {
    const s = this.settings;
    if (tenant !== s.tenantId) return { code: 90002, tenant };
    // A body that is not form-encoded is not read at all, so grant_type looks missing.
    const form = isFormEncoded(contentType) ? new URLSearchParams(body) : new URLSearchParams();
    const grantType = form.get("grant_type");
    if (!grantType) return { code: 900144, parameter: "grant_type" };
    if (grantType !== "client_credentials") return { code: 70003, grantType };
    const clientId = form.get("client_id");
    if (!clientId) return { code: 900144, parameter: "client_id" };
    if (clientId !== s.clientId) return { code: 700016, clientId, tenant };
    const resource = form.get("resource");
    if (!resource) return { code: 900144, parameter: "resource" };
    const secret = form.get("client_secret");
    if (!secret) return { code: 7000218 };
    if (this.#secretExpired) return { code: 7000222, clientId };
    if (secret !== this.#secret) return { code: 7000215, clientId };
    const audience = this.#audienceOf(resource);
    if (!audience) return { code: 500011, resource, tenant };
    return { audience, resource };
  }

  // Entra accepts a resource with or without its trailing slash.
  #audienceOf(resource: string): TokenAudience | undefined {
    const r = trimSlash(resource);
    if (r === trimSlash(this.settings.managementResource)) return "management";
    if (r === trimSlash(this.settings.vaultResource)) return "vault";
    return undefined;
  }

  #resourceOf(audience: TokenAudience): string {
    return audience === "management"
      ? this.settings.managementResource
      : this.settings.vaultResource;
  }
}

function isFormEncoded(contentType: string | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "application/x-www-form-urlencoded";
}

function trimSlash(value: string): string {
  return value.endsWith("/") ? value.slice(0, -1) : value;
}
