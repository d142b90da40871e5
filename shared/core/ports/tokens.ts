/** A cloud access token and when it stops being valid. */
export interface AccessToken {
  readonly token: string;
  /** Epoch milliseconds (expires_on, or the credential's expiresOnTimestamp). */
  readonly expiresOnMs: number;
  /**
   * Lifetime from the moment it was issued, in ms (expires_in), when the source says. It needs
   * no agreement between our clock and the issuer's, so the cache trusts it over expiresOnMs.
   */
  readonly expiresInMs?: number;
}

/** Where cloud tokens come from: the client-credentials flow, or the app's managed identity. */
export interface TokenSource {
  readonly kind: "client-secret" | "managed-identity";
  getToken(resource: string): Promise<AccessToken>;
}

/** Tokens per resource, cached until shortly before they expire (adapters/identity/tokenCache.ts). */
export interface Tokens {
  /** Listens for warnings (a token that will not last a sweep); returns the unsubscribe. */
  onWarning(listener: (message: string) => void): () => void;
  /** A token for `resource`, from the cache or the source. */
  token(resource: string): Promise<string>;
  /** Marks `token` refused by the service; true when the next token should replace it. */
  refused(resource: string, token: string): boolean;
  /** Forgets the cached token of `resource`. */
  invalidate(resource: string): void;
}
