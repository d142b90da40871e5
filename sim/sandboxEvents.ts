import { DAY_MS } from "../shared/lib/time.js";
import type { HostingVaultVersion } from "./hosting/hosting.js";
import type { Simulator } from "./simulator.js";

/**
 * The sandbox's event-driven check: after the sweep, a new version of one Key Vault
 * certificate lands in its vault (as a renewal done outside certsched, or by the vault's own
 * policy, would), and the vault tells the local function host through Event Grid. Its consumer
 * picks new versions up at once, so the check that follows finds it served within seconds.
 */

/** The certificate whose new version the sandbox adds (contoso's; its consumer does not lag). */
export const SAMPLE_EVENT_CERTIFICATE = "api-contoso-com";

/** The Event Grid function the vault's events go to, as named in functions/. */
export const SANDBOX_EVENT_FUNCTION = "keyVaultEvents";

/** The new version, where it lives, and the domain its consumer serves it on. */
export interface SandboxEventVersion {
  readonly keyVaultName: string;
  readonly certificateName: string;
  readonly rootDomain: string;
  readonly version: HostingVaultVersion;
}

/**
 * Adds a new version (90 days valid from now on the sim clock) to the sample certificate of a
 * started simulator with a hosting side; undefined when it has no such certificate.
 */
export function addEventVersion(sim: Simulator): SandboxEventVersion | undefined {
  const cert = sim.certificates().find((c) => c.certificateName === SAMPLE_EVENT_CERTIFICATE);
  if (cert === undefined || sim.hosting === undefined) return undefined;
  if (!cert.keyVaultName || !cert.rootDomain) return undefined;
  const certificateName = cert.keyVaultCertificateName || cert.certificateName;
  const now = Math.floor(Date.now() / 1000) * 1000;
  const version = sim.hosting.vault.addVersion(cert.keyVaultName, certificateName, {
    notBefore: new Date(now),
    notAfter: new Date(now + 90 * DAY_MS),
  });
  return { keyVaultName: cert.keyVaultName, certificateName, rootDomain: cert.rootDomain, version };
}
