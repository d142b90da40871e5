import type { TokenCredential } from "@azure/identity";
import type { SecretClientOptions } from "@azure/keyvault-secrets";
import type { SecretReader } from "../../core/ports/secrets.js";
import { boundedAnswerPolicy } from "../../lib/http/boundedAnswerPolicy.js";

/**
 * Longest body read of one answer of certsched's vault. A secret is at most 25 KiB; a body over
 * 1 MiB is not one, and is not read whole.
 */
export const MAX_SECRET_ANSWER_BYTES = 1024 * 1024;

/**
 * A real SecretClient as a SecretReader. The SDK is imported on first use so a cold start that
 * never touches the vault (direct values, or no vault configured) does not load it.
 * Tests pass a stub credential and the options a local fake vault needs
 * (`disableChallengeResourceVerification`, `tlsOptions: { ca }`, `retryOptions`).
 */
export async function createSecretClientReader(
  vaultUrl: string,
  credential: TokenCredential,
  clientOptions?: SecretClientOptions,
): Promise<SecretReader> {
  const { SecretClient } = await import("@azure/keyvault-secrets");
  return new SecretClient(vaultUrl, credential, {
    ...clientOptions,
    // Below the SDK's parsing: each answer's body is cut at the bound before it is read whole.
    additionalPolicies: [
      ...(clientOptions?.additionalPolicies ?? []),
      { policy: boundedAnswerPolicy(MAX_SECRET_ANSWER_BYTES), position: "perRetry" },
    ],
  });
}

/**
 * The production reader: DefaultAzureCredential picks the function app's managed identity
 * (a user-assigned one through AZURE_CLIENT_ID) and a developer's login locally.
 */
export async function createDefaultSecretReader(vaultUrl: string): Promise<SecretReader> {
  const { DefaultAzureCredential } = await import("@azure/identity");
  return createSecretClientReader(vaultUrl, new DefaultAzureCredential());
}
