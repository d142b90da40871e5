/**
 * Misbehaviours of the hosting side, set per certificate (by name): the most common pain of
 * certificate automation, "renewed, but the site still serves the old certificate", and its
 * neighbours.
 *
 * - `keep-old-certificate`: a renewal completes at the service (the record has its new dates,
 *   onCertificateRenewed fires) but the endpoint keeps serving the certificate it had, as an
 *   App Service whose binding nobody updated. Clearing the fault updates the binding.
 * - `wrong-name`: the endpoint serves a certificate (same CA, same dates) for another name,
 *   {@link WRONG_NAME}: a verifier must say `mismatch`.
 * - `unreachable`: the connection for that name is closed without a handshake (the client sees
 *   a reset), as a host that is down behind a load balancer.
 * - `keep-old-version`: for a Key Vault certificate, a renewal completes at the service but the
 *   simulator's vault (sim/hosting/vault.ts) keeps the version it had as the current one, as a
 *   vault the new version never reached. Clearing the fault installs the renewed version.
 *
 * What a browser checks, for the certificate the endpoint serves for that name:
 * - `with-intermediate`: issued by the simulator's intermediate CA and sent with it: a complete
 *   chain, as a public CA's (not a fault: the good case beside the next one).
 * - `omit-intermediate`: issued by the intermediate CA, sent without it: `incomplete-chain`.
 * - `weak-key`: an RSA key of 1024 bits: `weak`.
 * - `sha1-signature`: signed with SHA-1: `weak`.
 * - `too-long`: the same notAfter, notBefore moved back so the validity is one day over the
 *   CA/Browser Forum limit in force on it (e.g. 201 days from 2026-03-15): `too-long`.
 */
export type HostingFault =
  | "keep-old-certificate"
  | "wrong-name"
  | "unreachable"
  | "keep-old-version"
  | "with-intermediate"
  | "omit-intermediate"
  | "weak-key"
  | "sha1-signature"
  | "too-long";

export const HOSTING_FAULTS: readonly HostingFault[] = [
  "keep-old-certificate",
  "wrong-name",
  "unreachable",
  "keep-old-version",
  "with-intermediate",
  "omit-intermediate",
  "weak-key",
  "sha1-signature",
  "too-long",
];

/** The name on the certificate the `wrong-name` fault serves (.invalid never resolves, RFC 2606). */
export const WRONG_NAME = "another-site.invalid";

/** Faults per certificate name; several may hold at once. */
export class HostingFaultPlan {
  readonly #faults = new Map<string, Set<HostingFault>>();

  inject(certificateName: string, fault: HostingFault): void {
    if (!HOSTING_FAULTS.includes(fault)) {
      throw new RangeError(
        `Hosting fault must be one of ${HOSTING_FAULTS.join(", ")}, got ${String(fault)}`,
      );
    }
    const set = this.#faults.get(certificateName) ?? new Set<HostingFault>();
    set.add(fault);
    this.#faults.set(certificateName, set);
  }

  has(certificateName: string, fault: HostingFault): boolean {
    return this.#faults.get(certificateName)?.has(fault) ?? false;
  }

  /** Clears one certificate's faults, or every fault; returns the names that had any. */
  clear(certificateName?: string): string[] {
    if (certificateName === undefined) {
      const names = [...this.#faults.keys()];
      this.#faults.clear();
      return names;
    }
    return this.#faults.delete(certificateName) ? [certificateName] : [];
  }
}
