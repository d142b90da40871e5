/** Azure's rule for vault names: 3-24 letters, digits and single hyphens, from a letter. */
const VAULT_NAME = /^(?!.*--)[a-z][a-z0-9-]{1,22}[a-z0-9]$/i;

/** Whether Azure would accept `name` as a vault name; only such a name is put in a host. */
export function isKeyVaultName(name: string): boolean {
  return VAULT_NAME.test(name);
}

/** `https://{name}.vault.azure.net`, the suffix taken from the vault resource (sovereign clouds). */
export function defaultVaultUrl(keyVaultName: string, vaultResource: string): string {
  let suffix = "vault.azure.net";
  try {
    suffix = new URL(vaultResource).hostname || suffix;
  } catch {
    // An unreadable CERTSCHED_VAULT_RESOURCE: the public cloud's suffix.
  }
  return `https://${keyVaultName.toLowerCase()}.${suffix}`;
}
