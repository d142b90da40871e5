import type { Probes } from "../../core/ports/probes.js";
import { readKeyVaultCertificate, type VaultCredentials } from "./keyVaultProbe.js";
import { probeTls } from "./tlsProbe.js";

/** The probes: TLS handshakes, and vault reads with the vault token `vault` gives. */
export function createProbes(vault: VaultCredentials): Probes {
  return {
    tls: probeTls,
    keyVault: (target, options) => readKeyVaultCertificate(target, { ...options, vault }),
  };
}
