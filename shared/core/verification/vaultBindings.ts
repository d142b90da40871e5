import { KEY_VAULT } from "../certificate/fields.js";
import type { WatchVault } from "../inventory/watchVaults.js";
import type { InventoryRecord } from "../ports/inventory.js";
import type { VaultCertificate } from "../ports/probes.js";
import { type Endpoint, endpointKey } from "./endpoint.js";

/**
 * Which domains serve a vault certificate: a Key Vault record's rootDomain
 * and SAN names, and CERTSCHED_WATCH's mapped entries. Such a domain is probed over TLS as any
 * other, and its served certificate compared with the vault's current version (syncCheck.ts).
 */

/** The vault certificate a Key Vault record's domains serve; undefined for any other record. */
export function recordVault(record: InventoryRecord): VaultCertificate | undefined {
  if (record.target !== KEY_VAULT || !record.keyVaultName) return undefined;
  return {
    keyVaultName: record.keyVaultName,
    keyVaultCertificateName: record.keyVaultCertificateName,
    certificateName: record.certificateName,
  };
}

/** The vault certificates CERTSCHED_WATCH maps to each endpoint, by endpointKey. */
export function watchedVaults(
  watchVaults: readonly WatchVault[],
): ReadonlyMap<string, readonly VaultCertificate[]> {
  const byEndpoint = new Map<string, VaultCertificate[]>();
  for (const v of watchVaults) {
    const target = {
      keyVaultName: v.keyVaultName,
      keyVaultCertificateName: v.keyVaultCertificateName,
      certificateName: `${v.keyVaultName}/${v.keyVaultCertificateName}`,
    };
    for (const endpoint of v.endpoints) {
      const key = endpointKey(endpoint);
      byEndpoint.set(key, addVaults(byEndpoint.get(key) ?? [], [target]));
    }
  }
  return byEndpoint;
}

/** `{vault}/{certificate}` as Key Vault names it (names are case-insensitive there). */
export const vaultKey = (v: VaultCertificate) =>
  `${v.keyVaultName}/${v.keyVaultCertificateName || v.certificateName}`.toLowerCase();

/** `known` and `more`, once per vault certificate. */
export function addVaults(
  known: readonly VaultCertificate[],
  more: readonly VaultCertificate[],
): VaultCertificate[] {
  const all = [...known];
  for (const v of more) if (!all.some((k) => vaultKey(k) === vaultKey(v))) all.push(v);
  return all;
}

/** The vault certificates bound to `endpoint` by the mapped entries. */
export const vaultsAt = (
  bindings: ReadonlyMap<string, readonly VaultCertificate[]>,
  endpoint: Endpoint,
): readonly VaultCertificate[] => bindings.get(endpointKey(endpoint)) ?? [];
