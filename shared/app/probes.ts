import { tokenCredential } from "../adapters/identity/tokenCredential.js";
import type { VaultCredentials } from "../adapters/probes/keyVaultProbe.js";
import { createProbes } from "../adapters/probes/probes.js";
import type { KeyVaultSeam, Probes } from "../core/ports/probes.js";
import type { Tokens } from "../core/ports/tokens.js";
import type { KeyVaultResult, KeyVaultTarget } from "../core/verification/vaultVerdict.js";
import type { VerifySettings } from "../core/verification/verifySettings.js";
import { checkKeyVault } from "../usecases/steps/runCheck.js";

/**
 * The probes wired to certsched's token cache: the vault reader gets the vault token as an
 * Azure SDK TokenCredential (adapters/identity/tokenCredential.ts), never a login of its own.
 */

/** The vault token for `vaultResource` (CERTSCHED_VAULT_RESOURCE), from the token cache. */
export function vaultCredentials(
  tokens: Pick<Tokens, "token" | "refused">,
  vaultResource: string,
): VaultCredentials {
  return {
    resource: vaultResource,
    credential: () => tokenCredential(tokens, vaultResource),
    refused: (token) => tokens.refused(vaultResource, token),
  };
}

/** The probes of a runtime: TLS, and vault reads with its vault token. */
export function probesFor(
  tokens: Pick<Tokens, "token" | "refused">,
  vaultResource: string,
): Probes {
  return createProbes(vaultCredentials(tokens, vaultResource));
}

export interface KeyVaultProbeOptions {
  /** certsched's token cache (runtime.tokens): the vault token comes from it. */
  readonly tokens: Pick<Tokens, "token" | "refused">;
  /** CERTSCHED_VAULT_RESOURCE (settings.vaultResource), e.g. https://vault.azure.net. */
  readonly vaultResource: string;
  /**
   * timeoutMs bounds the whole read: token, connection, SDK retries. connectTo
   * (CERTSCHED_VERIFY_CONNECT_TO) redirects the vault host as it does a TLS probe.
   */
  readonly settings: Pick<VerifySettings, "warnDays" | "windowMs" | "timeoutMs"> &
    Partial<Pick<VerifySettings, "connectTo">>;
  readonly now: () => Date;
  readonly signal?: AbortSignal;
  readonly seam?: KeyVaultSeam;
}

/**
 * Checks one vault certificate with a token cache (the sandbox, tests): `{vault}/{certificate}`,
 * source `keyvault`, read and judged as a verification run does (checkKeyVault).
 */
export function probeKeyVault(
  target: KeyVaultTarget,
  options: KeyVaultProbeOptions,
): Promise<KeyVaultResult> {
  return checkKeyVault(probesFor(options.tokens, options.vaultResource), target, options);
}
