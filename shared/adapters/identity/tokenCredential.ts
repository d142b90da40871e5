import type { AccessToken, GetTokenOptions, TokenCredential } from "@azure/identity";
import { untilAborted } from "../../lib/abort.js";
import { TokenError } from "../../lib/errors.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { EXPIRY_MARGIN_MS, type TokenCache } from "./tokenCache.js";

/**
 * certsched's own token source as an Azure SDK TokenCredential, for one resource: the Key Vault
 * clients get the vault token certsched already obtains (client credentials or the app's
 * identity, cached and counted in one place), never a second login of their own.
 */

/** A TokenCredential bound to one resource; remembers what it handed out. */
export interface ResourceCredential extends TokenCredential {
  readonly resource: string;
  /** The last token given to the SDK: what a 401 refused (see TokenCache.refused). */
  readonly lastToken: string | undefined;
}

export interface TokenCredentialOptions {
  /** Epoch milliseconds; the same clock as the TokenCache's. */
  readonly now?: () => number;
  /** The TokenCache's refresh margin in ms (default EXPIRY_MARGIN_MS). */
  readonly marginMs?: number;
}

/** Longest piece of a scope quoted in an error: it comes from a server's challenge. */
const MAX_QUOTED = 200;

/** `https://vault.azure.net`, `https://vault.azure.net/` and its `/.default` scope are one audience. */
function audience(scopeOrResource: string): string {
  return scopeOrResource.replace(/\/\.default$/, "").replace(/\/+$/, "");
}

/**
 * The credential for `resource` (e.g. settings.vaultResource). A request for any other scope is
 * refused: the scope comes from the server's 401 challenge, and a server that asks for another
 * audience (the management resource) must not get that token. `expiresOnTimestamp` is the least
 * the cache guarantees (a token it hands out has more than its margin left), so the SDK never
 * keeps a token longer than the cache would.
 */
export function tokenCredential(
  tokens: Pick<TokenCache, "token">,
  resource: string,
  options: TokenCredentialOptions = {},
): ResourceCredential {
  const now = options.now ?? Date.now;
  const marginMs = options.marginMs ?? EXPIRY_MARGIN_MS;
  let lastToken: string | undefined;
  return {
    resource,
    get lastToken() {
      return lastToken;
    },
    async getToken(scopes: string | string[], getOptions?: GetTokenOptions): Promise<AccessToken> {
      const asked = typeof scopes === "string" ? [scopes] : scopes;
      const other = asked.find((scope) => audience(scope) !== audience(resource));
      if (other !== undefined || asked.length === 0) {
        const quoted = escapeControl((other ?? "(no scope)").slice(0, MAX_QUOTED));
        throw new TokenError(
          "TOKEN_UNAVAILABLE",
          `the server asked for a token for ${quoted}; certsched sends it only its token for ${resource}`,
          { resource },
        );
      }
      const token = await untilAborted(tokens.token(resource), getOptions?.abortSignal);
      lastToken = token;
      return { token, expiresOnTimestamp: now() + marginMs };
    },
  };
}
