import type {
  KeyVaultRead,
  KeyVaultSeam,
  ProbeResult,
  Probes,
  VaultCertificate,
} from "../../core/ports/probes.js";
import type { AcceptedRenewal } from "../../core/verification/judge.js";
import { isKeyVaultName } from "../../core/verification/keyVaultName.js";
import { type VaultVersion, vaultVersionOf } from "../../core/verification/syncCheck.js";
import { vaultKey } from "../../core/verification/vaultBindings.js";
import type { VerifySettings } from "../../core/verification/verifySettings.js";

/**
 * The vault side of the not-synced check: the current version of the vault
 * certificates a domain serves, read once per run however many checks ask.
 */

/**
 * `probes` whose vault reads are shared within one run: the vault check and the TLS checks of
 * the domains bound to it ask for the same certificate, and it is read once. A read of one
 * version (a Key Vault event's) is another read than the current version's, shared apart.
 */
export function sharedVaultReads(probes: Probes): Probes {
  const reads = new Map<string, Promise<KeyVaultRead>>();
  return {
    tls: (endpoint, options) => probes.tls(endpoint, options),
    keyVault: (target, options) => {
      const key = `${vaultKey(target)}\n${options.version?.toLowerCase() ?? ""}`;
      let read = reads.get(key);
      if (read === undefined) {
        read = probes.keyVault(target, options);
        reads.set(key, read);
      }
      return read;
    },
  };
}

export interface VaultSyncOptions {
  readonly settings: Pick<VerifySettings, "timeoutMs"> & Partial<Pick<VerifySettings, "connectTo">>;
  readonly signal?: AbortSignal | undefined;
  readonly seam?: KeyVaultSeam | undefined;
}

/**
 * The vault version a domain's served certificate is compared with: the one it serves, when any
 * bound vault certificate's current version is it (synced); else the newest readable one.
 * Undefined when no vault could be read (the domain is judged as before) or none is bound. A
 * vault name Azure would not accept is never read (it would become part of the token's host).
 */
export async function vaultToCompare(
  probes: Pick<Probes, "keyVault">,
  vaults: readonly VaultCertificate[] | undefined,
  probe: ProbeResult,
  options: VaultSyncOptions,
): Promise<VaultVersion | undefined> {
  if (!probe.reached || vaults === undefined || vaults.length === 0) return undefined;
  const readable = vaults.filter((v) => isKeyVaultName(v.keyVaultName));
  const versions = await Promise.all(
    readable.map(async (v) => {
      const read = await probes.keyVault(v, {
        settings: options.settings,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.seam ? { seam: options.seam } : {}),
      });
      return vaultVersionOf(
        `${v.keyVaultName}/${v.keyVaultCertificateName || v.certificateName}`,
        read,
      );
    }),
  );
  const known = versions.filter((v): v is VaultVersion => v !== undefined);
  const served = known.find((v) => v.thumbprint === probe.certificate.thumbprint);
  if (served) return served;
  return known.sort((a, b) => b.notBefore.getTime() - a.notBefore.getTime())[0];
}

/**
 * The renewal a vault-bound domain is judged against: none once the renewal reached the vault
 * (its current version expires later than before the request). From then on the question is
 * whether the domain picked the version up (not-synced), not whether the renewal landed; while
 * the vault still holds the old version, the renewal is in flight for the domain too.
 */
export function renewalForDomain(
  renewal: AcceptedRenewal | undefined,
  vault: VaultVersion | undefined,
): AcceptedRenewal | undefined {
  if (renewal === undefined || vault === undefined) return renewal;
  return vault.notAfter.getTime() > renewal.expiryAtRequest.getTime() ? undefined : renewal;
}
