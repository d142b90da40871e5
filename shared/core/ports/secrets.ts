/** What the store needs from a vault client; `SecretClient` satisfies it. */
export interface SecretReader {
  getSecret(
    name: string,
    options?: { abortSignal?: AbortSignal },
  ): Promise<{
    value?: string | undefined;
    properties?: { enabled?: boolean | undefined } | undefined;
  }>;
}

/** Where a secret comes from, for diagnostics. */
export type SecretSource = "direct" | "key-vault" | "missing";

export interface SecretStore {
  /** API key for the v3 operations. */
  apiKey(): Promise<string>;
  /**
   * Client secret for the identity provider; `{ fresh: true }` bypasses the cache (after the
   * identity provider said it is invalid or expired).
   */
  clientSecret(options?: { fresh?: boolean }): Promise<string>;
  /**
   * Another secret of the vault by its name (the Certificate Transparency API key), cached like
   * the others; SECRET_UNAVAILABLE without a vault.
   */
  named(secretName: string): Promise<string>;
  /** Where each value comes from. Never the values. */
  describe(): { apiKey: SecretSource; clientSecret: SecretSource };
}
