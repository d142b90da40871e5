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
