import type { CertificateClientOptions } from "@azure/keyvault-certificates";
import { createResourceGraphClient } from "../adapters/estate/resourceGraphClient.js";
import { createVaultCertificateLister } from "../adapters/estate/vaultLister.js";
import type { TokenCache } from "../adapters/identity/tokenCache.js";
import { tokenCredential } from "../adapters/identity/tokenCredential.js";
import { ConnectToAgent } from "../adapters/probes/connectToAgent.js";
import type { EstateReaders } from "../core/ports/estate.js";
import type { KeyVaultSeam } from "../core/ports/probes.js";
import type { Settings } from "../core/settings.js";
import { defaultVaultUrl } from "../core/verification/keyVaultName.js";

/**
 * What estate discovery reads for one account, with its own tokens (certsched's token cache as
 * a TokenCredential: no second login): Resource Graph at CERTSCHED_ARM_URL with the management
 * token, each vault with the vault token, CERTSCHED_VERIFY_CONNECT_TO moving a vault's host as
 * it does for verification. Loaded by accountServices.ts on first use only.
 */
export function buildEstateReaders(
  settings: Settings,
  tokens: TokenCache,
  seam?: KeyVaultSeam,
  armCa?: string,
): EstateReaders {
  const { timeoutMs } = settings.estate();
  const graph = createResourceGraphClient({
    armUrl: settings.preflight().armUrl,
    credential: tokenCredential(tokens, settings.managementResource),
    resource: settings.managementResource,
    timeoutMs,
    ca: armCa,
  });
  const vaults = createVaultCertificateLister({
    credential: tokenCredential(tokens, settings.vaultResource),
    vaultUrlOf: (vault) =>
      seam?.vaultUrl?.(vault.name) ?? defaultVaultUrl(vault.name, settings.vaultResource),
    timeoutMs,
    clientOptions: seam?.clientOptions as CertificateClientOptions | undefined,
    // A seam's URL already says where the vault is; otherwise the rules move the vault's host.
    agent: (tlsOptions) => {
      const rules = seam?.vaultUrl ? [] : settings.verify().connectTo;
      return rules.length > 0
        ? new ConnectToAgent(rules, { keepAlive: false, ...tlsOptions })
        : undefined;
    },
  });
  return { graph, vaults };
}
