import { DAY_MS, HOUR_MS } from "../shared/lib/time.js";
import type { SeedCertificate } from "./certificate.js";
import { sampleCertificates } from "./sampleCertificates.js";
import type { Simulator } from "./simulator.js";

/**
 * The sandbox's staged not-synced: a Key Vault certificate the service
 * renewed 30 hours ago, whose new version has been current in the vault since, while the domain
 * that serves it (its consumer: an App Service, a gateway) still serves the previous version,
 * as one that takes days to pick a new version up. Verification says `not-synced`: more than
 * CERTSCHED_SYNC_WINDOW (24 h) since the version was created.
 */

/** The staged certificate (contoso's). */
export const SAMPLE_NOT_SYNCED = "cdn-contoso-com";

/** How long ago the service renewed it and its vault got the new version. */
export const SAMPLE_SYNC_AGE_MS = 30 * HOUR_MS;

/** How long its consumer takes to serve a new version (the simulator's vaultLag). */
export const SAMPLE_SYNC_LAG_MS = 3 * DAY_MS;

/** The staged certificate's seed: renewed SAMPLE_SYNC_AGE_MS ago, 90 days valid, not due. */
export function notSyncedSample(now: Date): SeedCertificate {
  // Shaped as contoso's other Key Vault samples (api-contoso-com): same vault, zone, subscription.
  const like = sampleCertificates(now).find((c) => c.keyVaultName !== undefined);
  const issueDate = new Date(now.getTime() - SAMPLE_SYNC_AGE_MS);
  return {
    ...like,
    certificateName: SAMPLE_NOT_SYNCED,
    rootDomain: "cdn.contoso.com",
    target: "Cloud Key Vault + DNS",
    keyVaultName: like?.keyVaultName ?? "kv-certsched",
    issueDate,
    expiryDate: new Date(issueDate.getTime() + 90 * DAY_MS),
  };
}

/**
 * Stages the vault's history for the staged certificate on a started simulator: the previous
 * version (issued 60 days before the renewal, still valid) and the current one, created at the
 * renewal; its consumer lags SAMPLE_SYNC_LAG_MS behind, so it serves the previous one. Nothing
 * for a simulator without the certificate or a hosting side.
 */
export function stageNotSynced(sim: Simulator): void {
  const cert = sim.certificates().find((c) => c.certificateName === SAMPLE_NOT_SYNCED);
  if (cert === undefined || sim.hosting === undefined || !cert.keyVaultName) return;
  const renewedAt = cert.issueDate.getTime();
  sim.hosting.vault.stageVersions(cert.keyVaultName, cert.certificateName, [
    {
      notBefore: new Date(renewedAt - 60 * DAY_MS),
      notAfter: new Date(renewedAt + 30 * DAY_MS),
      created: new Date(renewedAt - 60 * DAY_MS),
    },
    { notBefore: cert.issueDate, notAfter: cert.expiryDate, created: cert.issueDate },
  ]);
  sim.hosting.setVaultLag(cert.certificateName, SAMPLE_SYNC_LAG_MS);
}
