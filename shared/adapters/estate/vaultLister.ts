import type { TokenCredential } from "@azure/identity";
import type { CertificateClientOptions } from "@azure/keyvault-certificates";
import type { VaultCertificateLister, VaultRef } from "../../core/ports/estate.js";

/**
 * A vault's certificates for the estate: its own list (listPropertiesOfCertificates, paged) and
 * each one's policy (auto-renewal, issuer, subject, SANs), through the real CertificateClient and
 * the account's vault token. Bounded in time, pages, certificates and bytes; a vault that
 * refuses (403) or cannot be reached is its own problem, never the report's.
 */
export interface VaultListerOptions {
  /** The account's vault token (resource CERTSCHED_VAULT_RESOURCE), as the vault probe gets it. */
  readonly credential: TokenCredential;
  /** Where a vault is: https://{name}.vault.azure.net in Azure; the simulator's URL in tests. */
  readonly vaultUrlOf: (vault: VaultRef) => string;
  /** Bounds one vault's whole listing (token, pages, policies). */
  readonly timeoutMs: number;
  /** Certificates read of one vault; the rest are counted in `truncated`. */
  readonly maxCertificates?: number | undefined;
  /** The SDK's options laid over ours (a fake vault's `tlsOptions: { ca }`). */
  readonly clientOptions?: CertificateClientOptions | undefined;
}

export function createVaultCertificateLister(options: VaultListerOptions): VaultCertificateLister {
  void options;
  throw new Error("not built yet");
}
