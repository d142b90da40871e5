import type { HostingFault } from "./hostingFaults.js";

/**
 * Options of the hosting side (SimulatorOptions.hosting). Setting them, even to `{}`, starts
 * the endpoint; without them the simulator is the service alone.
 */
export interface HostingOptions {
  /** Port to listen on (on the simulator's host); 0 picks a free one. Default 0. */
  port?: number;
  /** Faults present from the start, by certificate name. Default none. */
  faults?: Readonly<Record<string, HostingFault | readonly HostingFault[]>>;
}

/**
 * The hosting side of the simulator: one TLS endpoint on loopback that serves, per SNI name,
 * a certificate for each App Service certificate of the simulator (its rootDomain), signed by
 * a throwaway CA made at start. A renewal that completes at the service installs a new
 * certificate (notBefore/notAfter = the record's new issueDate/expiryDate, to the second).
 *
 * - A name two App Service certificates share is served the first one's (simulator order).
 * - An SNI name no App Service certificate has, or no SNI at all, fails the handshake with a
 *   handshake_failure alert, as a host with no certificate for the name does.
 * - Key Vault certificates are not served here (they live in the fake vault).
 */
export interface Hosting {
  /** Address to connect to: the simulator's host (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** PEM of the throwaway CA: trust it (`ca`, NODE_EXTRA_CA_CERTS) to verify what is served. */
  readonly caPem: string;
  /**
   * A CERTSCHED_VERIFY_CONNECT_TO value that sends every name, on every port, here
   * (`::127.0.0.1:PORT`): SNI and the name check still use the real name.
   */
  readonly connectTo: string;
  /** Sets a fault for one certificate (by name), from the next handshake on. */
  inject(certificateName: string, fault: HostingFault): void;
  /**
   * Clears one certificate's faults, or every fault. A certificate that kept its old
   * certificate is served the current one from then on (the binding was updated).
   */
  clearFaults(certificateName?: string): void;
}
