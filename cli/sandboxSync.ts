import { probesFor } from "../shared/app/probes.js";
import type { Tokens } from "../shared/core/ports/tokens.js";
import { parseEndpoint } from "../shared/core/verification/endpoint.js";
import type { InventoryResult } from "../shared/core/verification/inventoryResult.js";
import type { AcceptedRenewal } from "../shared/core/verification/judge.js";
import { judgeTarget } from "../shared/core/verification/targets.js";
import type { VerifySettings } from "../shared/core/verification/verifySettings.js";
import {
  renewalForDomain,
  sharedVaultReads,
  vaultToCompare,
} from "../shared/usecases/steps/vaultSync.js";
import { probeTarget } from "../shared/usecases/verifyDomains.js";
import type { Hosting, Simulator } from "../sim/index.js";
import { SAMPLE_NOT_SYNCED } from "../sim/sandboxSync.js";
import type { Palette } from "./output/color.js";
import { wrapToWidth } from "./output/text.js";

/**
 * The sandbox's verification of the domains that serve its Key Vault certificates, as a
 * verification run does it (shared/usecases/steps/runCheck.ts): each rootDomain
 * over TLS on the simulator's hosting endpoint, compared with the vault's current version.
 */

export interface VaultDomainsOptions {
  readonly sim: Simulator;
  readonly hosting: Hosting;
  readonly tokens: Pick<Tokens, "token" | "refused">;
  readonly vaultResource: string;
  readonly settings: VerifySettings;
  readonly now: () => Date;
  readonly renewalOf: (id: number) => Promise<AcceptedRenewal | undefined>;
}

/** One result per Key Vault certificate with a rootDomain, source `tls`. */
export async function verifyVaultDomains(options: VaultDomainsOptions): Promise<InventoryResult[]> {
  const probes = sharedVaultReads(probesFor(options.tokens, options.vaultResource));
  const ca = [options.hosting.caPem];
  // In this process NODE_EXTRA_CA_CERTS is not set: trust the CA here, as the TLS probes do.
  const seam = { clientOptions: { tlsOptions: { ca: options.hosting.caPem } } };
  const results: InventoryResult[] = [];
  for (const cert of options.sim.certificates()) {
    if (cert.target !== "Cloud Key Vault + DNS" || !cert.keyVaultName || !cert.rootDomain) continue;
    const endpoint = parseEndpoint(cert.rootDomain);
    if (typeof endpoint === "string") continue;
    const verify = { probes, settings: options.settings, now: options.now, ca };
    const target = { endpoint, certificateName: cert.certificateName, publicOnly: true };
    const probe = await probeTarget(target, verify);
    const bound = [{ keyVaultName: cert.keyVaultName, certificateName: cert.certificateName }];
    const vault = await vaultToCompare(probes, bound, probe, { settings: options.settings, seam });
    const renewal = renewalForDomain(await options.renewalOf(cert.id), vault);
    results.push(judgeTarget({ ...target, vault, ...(renewal ? { renewal } : {}) }, probe, verify));
  }
  return results;
}

/** The staged not-synced domains among `results`: the sandbox's demo, not a failure. */
export const stagedNotSynced = (results: readonly InventoryResult[]): string[] =>
  results
    .filter((r) => r.status === "not-synced" && r.certificateName === SAMPLE_NOT_SYNCED)
    .map((r) => r.domain);

/** Why the staged not-synced is expected, in the sandbox's words. */
export function notSyncedNote(
  domains: readonly string[],
  passes: boolean,
  paint: Palette,
  width: number | undefined,
): string[] {
  if (domains.length === 0) return [];
  const note = `${paint.bold("Expected in the sandbox:")} the service renewed ${SAMPLE_NOT_SYNCED} 30 hours ago and its vault holds the new version since, but ${domains.join(", ")} still serves the previous one: the simulator's consumer of the vault lags 3 days on purpose, to show what "the vault was renewed, but the site still serves the old certificate" looks like (App Service picks a new version up "typically within 24 hours"). Against a real service not-synced makes certsched verify exit with code 1; here it is part of the demo${passes ? ", so the exit code is 0" : ""}.`;
  return ["", ...wrapToWidth(note, width ?? 80)];
}
