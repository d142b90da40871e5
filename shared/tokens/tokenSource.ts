/** A cloud access token and when it stops being valid. */
export interface AccessToken {
  readonly token: string;
  /** Epoch milliseconds. */
  readonly expiresOnMs: number;
}

/** Where cloud tokens come from: the client-credentials flow, or the app's managed identity. */
export interface TokenSource {
  readonly kind: "client-secret" | "managed-identity";
  getToken(resource: string): Promise<AccessToken>;
}
