import type { SecretStore } from "../../core/ports/secrets.js";
import { TokenError } from "../../lib/errors.js";
import { SECRET_REJECTED_CODES } from "./aadsts.js";

/** AADSTS codes meaning the client secret itself is wrong, invalid or expired (aadsts.ts). */
const BAD_CLIENT_SECRET = new Set(SECRET_REJECTED_CODES);

/**
 * Runs `fn` with the client secret. If the identity provider refuses that secret and it came
 * from Key Vault, the secret may have been rotated since we cached it: read it once more,
 * bypassing the cache, and if it changed try `fn` once more. Never loops; any other failure,
 * or an unchanged secret, rethrows the original error.
 */
export async function withClientSecretRetry<T>(
  store: Pick<SecretStore, "clientSecret" | "describe">,
  fn: (secret: string) => Promise<T>,
): Promise<T> {
  const secret = await store.clientSecret();
  try {
    return await fn(secret);
  } catch (error) {
    if (!isBadClientSecret(error) || store.describe().clientSecret !== "key-vault") throw error;
    let fresh: string;
    try {
      fresh = await store.clientSecret({ fresh: true });
    } catch {
      // The refused secret is the problem to report; a vault hiccup now would hide it.
      throw error;
    }
    if (fresh === secret) throw error;
    return fn(fresh);
  }
}

function isBadClientSecret(error: unknown): boolean {
  return (
    error instanceof TokenError && error.aadsts !== undefined && BAD_CLIENT_SECRET.has(error.aadsts)
  );
}
