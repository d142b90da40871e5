import { tokenResponse } from "../../core/certificate/records.js";
import type { AccessToken, TokenSource } from "../../core/ports/tokens.js";
import { TokenError } from "../../lib/errors.js";
import type { HttpClient } from "../../lib/http/httpClient.js";
import { responseDetail } from "../../lib/http/responseDetail.js";
import { REPEATABLE } from "../../lib/http/retryPolicy.js";
import { registerToken } from "../../lib/redact/redact.js";
import { aadstsCode, aadstsMeaning } from "./aadsts.js";

export interface ClientCredentialsOptions {
  /** {token_url}, no trailing slash. */
  readonly tokenUrl: string;
  readonly tenantId: string;
  readonly clientId: string;
  /** Runs `request` with the client secret; may re-read it once when it is refused. */
  readonly withClientSecret: <T>(request: (secret: string) => Promise<T>) => Promise<T>;
  readonly http: HttpClient;
}

/** Builds the token request of spec 4.6: a form POST to {token_url}/{tenant}/oauth2/token. */
export function buildTokenRequest(
  options: Pick<ClientCredentialsOptions, "tokenUrl" | "tenantId" | "clientId">,
  secret: string,
  resource: string,
): { url: string; headers: Record<string, string>; body: string } {
  return {
    url: `${options.tokenUrl}/${encodeURIComponent(options.tenantId)}/oauth2/token`,
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: options.clientId,
      client_secret: secret,
      resource,
    }).toString(),
  };
}

/** The client-credentials flow (spec 4.6, 2.5): one token per call, no caching here. */
export function clientCredentialsSource(options: ClientCredentialsOptions): TokenSource {
  return {
    kind: "client-secret",
    getToken: (resource) =>
      options.withClientSecret(async (secret) => {
        const req = buildTokenRequest(options, secret, resource);
        const res = await options.http
          .send({ upstream: "token", ...req, policy: REPEATABLE })
          .catch((error: unknown) => {
            throw new TokenError(
              "TOKEN_UNAVAILABLE",
              `Identity provider unreachable while getting a token for ${resource}: ${
                error instanceof Error ? error.message : String(error)
              }`,
              { resource, retriable: true, cause: error },
            );
          });
        return parseTokenResponse(resource, res.status, res.text, res.contentType);
      }),
  };
}

function parseTokenResponse(
  resource: string,
  status: number,
  text: string,
  contentType: string | undefined,
): AccessToken {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (status === 200) {
    const parsed = tokenResponse.safeParse(json);
    if (!parsed.success) {
      throw new TokenError(
        "TOKEN_UNAVAILABLE",
        `Identity provider answered 200 without a usable token for ${resource}`,
        { resource, status },
      );
    }
    registerToken(parsed.data.access_token);
    // A token for another audience would be refused by the service on every call; say so
    // here, naming both. The v1 endpoint echoes the resource with or without its trailing "/".
    if (withoutSlash(parsed.data.resource) !== withoutSlash(resource)) {
      throw new TokenError(
        "TOKEN_UNAVAILABLE",
        `Identity provider answered 200 with a token for ${JSON.stringify(
          parsed.data.resource.slice(0, 200),
        )}, not for ${resource}`,
        { resource, status },
      );
    }
    return {
      token: parsed.data.access_token,
      expiresOnMs: parsed.data.expires_on * 1000,
      expiresInMs: parsed.data.expires_in * 1000,
    };
  }
  const code = aadstsCode(json);
  const meaning = aadstsMeaning(code);
  if (code !== undefined) {
    const error = (json as { error?: unknown }).error;
    throw new TokenError(
      "TOKEN_REFUSED",
      `Identity provider refused a token for ${resource}: AADSTS${code} (${
        meaning ?? `error "${String(error)}"`
      })`,
      { resource, aadsts: code, status },
    );
  }
  throw new TokenError(
    "TOKEN_UNAVAILABLE",
    `Identity provider answered ${status} for ${resource}${
      responseDetail(text, contentType) ? `: ${responseDetail(text, contentType)}` : ""
    }`,
    { resource, status, retriable: status >= 500 || status === 429 },
  );
}

function withoutSlash(resource: string): string {
  return resource.replace(/\/+$/, "");
}
