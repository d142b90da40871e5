import tls from "node:tls";
import { KEY_VAULT_TARGET, type SimCertificate } from "../certificate.js";
import type { HostingSource } from "./hosting.js";
import type { HostingFaultPlan } from "./hostingFaults.js";
import type { StoredVersion, VaultEndpoint } from "./vault.js";

/**
 * The consumers of the simulator's Key Vault: App Service, a gateway or
 * Front Door serving a Key Vault certificate's rootDomain with a version they fetched from the
 * vault. Each picks up a new version after its certificate's lag (HostingOptions.vaultLag, ms on
 * the sim clock; default 0: at once), as App Service does "typically within 24 hours": until
 * then the domain keeps serving the version it had. The served certificate is the vault
 * version's own (same bytes, same fingerprint).
 */

type VaultBound = SimCertificate & { keyVaultName: string; rootDomain: string };

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, "");

function servesVault(cert: SimCertificate): cert is VaultBound {
  return (
    cert.target === KEY_VAULT_TARGET &&
    typeof cert.keyVaultName === "string" &&
    typeof cert.rootDomain === "string"
  );
}

/**
 * The version a consumer with `lagMs` serves at `now`: the newest created at least `lagMs` ago,
 * else the oldest (the one it was set up with). Undefined when there is none.
 */
export function servedVersion(
  versions: readonly StoredVersion[],
  now: Date,
  lagMs: number,
): StoredVersion | undefined {
  const caughtUp = versions.filter((v) => now.getTime() - v.created * 1000 >= lagMs);
  return caughtUp.at(-1) ?? versions[0];
}

/** Lags per certificate name, settable while the simulator runs. */
export class VaultLagPlan {
  readonly #lags = new Map<string, number>();

  constructor(initial: Readonly<Record<string, number>> = {}) {
    for (const [name, ms] of Object.entries(initial)) this.set(name, ms);
  }

  /** Sets (or, with undefined, clears) the lag of one certificate's consumers. */
  set(certificateName: string, lagMs: number | undefined): void {
    if (lagMs === undefined) {
      this.#lags.delete(certificateName);
      return;
    }
    if (!Number.isFinite(lagMs) || lagMs < 0) {
      throw new RangeError(
        `Simulator option hosting.vaultLag for ${certificateName} must be a number of ms >= 0, got ${lagMs}`,
      );
    }
    this.#lags.set(certificateName, lagMs);
  }

  of(certificateName: string): number {
    return this.#lags.get(certificateName) ?? 0;
  }
}

/**
 * A selector for SNI names that a Key Vault certificate's rootDomain: the context of the version
 * its consumer serves now; undefined when no Key Vault certificate has the name; an Error (the
 * connection is reset) for the `unreachable` fault.
 */
export function vaultSelector(
  source: HostingSource,
  vault: Pick<VaultEndpoint, "served">,
  lags: VaultLagPlan,
  faults: Pick<HostingFaultPlan, "has">,
): (servername: string) => tls.SecureContext | Error | undefined {
  const contexts = new Map<string, tls.SecureContext>();
  return (servername) => {
    const name = normalize(servername);
    const cert = source
      .certificates()
      .filter(servesVault)
      .find((c) => normalize(c.rootDomain) === name);
    if (cert === undefined) return undefined;
    if (faults.has(cert.certificateName, "unreachable")) {
      return new Error(`hosting fault: ${cert.certificateName} is unreachable`);
    }
    const inVault = cert.keyVaultCertificateName || cert.certificateName;
    const version = servedVersion(
      vault.served(cert.keyVaultName, inVault),
      source.now(),
      lags.of(cert.certificateName),
    );
    if (version === undefined) return undefined;
    let context = contexts.get(version.version);
    if (context === undefined) {
      context = tls.createSecureContext(version.leaf);
      contexts.set(version.version, context);
    }
    return context;
  };
}
