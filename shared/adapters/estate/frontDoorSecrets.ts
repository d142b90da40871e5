import { z } from "zod";
import type { EstateCertificate } from "../../core/estate/estate.js";
import { dateOf, hostNamesOf, shown, thumbprintOf } from "./graphRows.js";

/**
 * A Front Door custom domain that brings its own certificate names a profile secret
 * (`tlsSettings.secret.id`); the secret (Microsoft.Cdn/profiles/secrets) names the Key Vault
 * secret it comes from and carries the certificate's expiry, subject, issuer and thumbprint.
 * Joined here, so such a domain is matched by its vault like any other, and its expiry is known.
 */

const text = z.string().max(100_000).optional().catch(undefined);

export const frontDoorSecretRow = z.object({
  id: z.string().min(1).max(2000),
  secretType: text,
  secretSourceId: text,
  expirationDate: text,
  subject: text,
  certificateAuthority: text,
  thumbprint: text,
  subjectAlternativeNames: z.array(z.unknown()).max(100_000).optional().catch(undefined),
});
export type FrontDoorSecretRow = z.infer<typeof frontDoorSecretRow>;

/** Secrets by their ARM id, lower-case. */
export function frontDoorSecrets(
  rows: readonly FrontDoorSecretRow[],
): Map<string, FrontDoorSecretRow> {
  return new Map(rows.map((row) => [row.id.toLowerCase(), row]));
}

/**
 * A Key Vault secret's ARM id (`/subscriptions/…/providers/Microsoft.KeyVault/vaults/{vault}/
 * secrets/{name}[/{version}]`) as the estate keys vault items:
 * `https://{vault}.vault.azure.net/secrets/{name}`, lower-case; else undefined.
 */
export function vaultSecretOfArmId(value: string | undefined): string | undefined {
  const m = value?.match(
    /^\/subscriptions\/[^/]+\/resourcegroups\/[^/]+\/providers\/microsoft\.keyvault\/vaults\/([a-z0-9-]{3,24})\/secrets\/([a-z0-9-]{1,127})(\/[^/]*)?\/?$/i,
  );
  if (!m) return undefined;
  return `https://${m[1]?.toLowerCase()}.vault.azure.net/secrets/${m[2]?.toLowerCase()}`;
}

/** The domain with what its profile secret says of its certificate (unchanged without one). */
export function withFrontDoorSecret(
  domain: EstateCertificate,
  secretId: string | undefined,
  secrets: ReadonlyMap<string, FrontDoorSecretRow>,
): EstateCertificate {
  if (secretId === undefined || secretId.trim() === "") return domain;
  const secret = secrets.get(secretId.toLowerCase());
  if (secret === undefined) {
    return { ...domain, problems: [...domain.problems, "its profile secret could not be read"] };
  }
  const names = hostNamesOf([secret.subject, ...(secret.subjectAlternativeNames ?? [])]);
  return {
    ...domain,
    thumbprint: thumbprintOf(secret.thumbprint),
    expiresAt: dateOf(secret.expirationDate),
    issuer: shown(secret.certificateAuthority),
    subject: shown(secret.subject),
    hostNames: domain.hostNames.length > 0 ? domain.hostNames : names.hostNames,
    keyVaultId: vaultSecretOfArmId(secret.secretSourceId),
  };
}
