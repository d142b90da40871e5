import type { SimCertificate } from "../certificate.js";
import type { RenewedListener } from "../state.js";
import type { HostingChallenge } from "./challengeServer.js";
import type { HostingFault } from "./hostingFaults.js";
import type { VaultEventDelivery, VaultEventsOptions } from "./vaultEvents.js";

/**
 * Options of the hosting side (SimulatorOptions.hosting). Setting them, even to `{}`, starts
 * the endpoint; without them the simulator is the service alone.
 */
export interface HostingOptions {
  /** Port to listen on (on the simulator's host); 0 picks a free one. Default 0. */
  port?: number;
  /** Faults present from the start, by certificate name. Default none. */
  faults?: Readonly<Record<string, HostingFault | readonly HostingFault[]>>;
  /**
   * Per Key Vault certificate (by name): how long its consumers take to serve a new vault
   * version, in ms on the sim clock (sim/hosting/vaultServing.ts). Default 0: at once.
   */
  vaultLag?: Readonly<Record<string, number>>;
  /**
   * Where the vault POSTs its Key Vault certificate events, as Event Grid delivers them to a
   * webhook (sim/hosting/vaultEvents.ts); `vault.setEvents` changes it later. Default none.
   */
  events?: VaultEventsOptions;
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
 * - A Key Vault certificate's rootDomain is served the vault version its consumer has picked up
 *   (the newest at least its `vaultLag` old: vaultServing.ts); the versions live in `vault`.
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
  /**
   * The simulator's Key Vault (sim/hosting/vault.ts): the certificates API for every vault its
   * Key Vault certificates name, on its own port, its server certificate (for
   * `*.vault.azure.net`) from the same CA.
   */
  readonly vault: HostingVault;
  /**
   * The apps' plain-HTTP side (sim/hosting/challengeServer.ts): the HTTP-01 challenge path of
   * every App Service domain, on its own port; `challenge.connectTo` routes port 80 there.
   */
  readonly challenge: HostingChallenge;
  /** Sets a fault for one certificate (by name), from the next handshake (or vault read) on. */
  inject(certificateName: string, fault: HostingFault): void;
  /**
   * Clears one certificate's faults, or every fault. A certificate that kept its old
   * certificate is served the current one from then on (the binding was updated); a Key Vault
   * certificate that kept its old version gets the renewed one as its current version.
   */
  clearFaults(certificateName?: string): void;
  /**
   * Sets (undefined: clears) how long a Key Vault certificate's consumers take to serve a new
   * version, in ms on the sim clock, from the next handshake on.
   */
  setVaultLag(certificateName: string, lagMs: number | undefined): void;
}

/** One request the simulator's vault received, in arrival order (never its token). */
export interface VaultRequest {
  readonly method: string;
  /** Path without the query string, still percent-encoded as sent. */
  readonly path: string;
  /** The Host header as sent, e.g. `kv-certsched.vault.azure.net`. */
  readonly host: string;
  /** The TLS server name (SNI) the client sent; undefined without one. */
  readonly servername: string | undefined;
  /** Whether it carried `Authorization: Bearer ...`. */
  readonly authorized: boolean;
}

/** One version of a certificate in the simulator's vault. */
export interface HostingVaultVersion {
  readonly version: string;
  /** The DER certificate. */
  readonly der: Buffer;
  /** Unix seconds on the sim clock. */
  readonly created: number;
}

/**
 * The simulator's Key Vault: `https://{keyVaultName}.vault.azure.net` for every vault name, all
 * on one loopback port (the Host header says which vault). Only simulator-issued vault tokens
 * are accepted. A client reaches it through `connectTo()` (CERTSCHED_VERIFY_CONNECT_TO), with
 * `caPem` trusted.
 */
export interface HostingVault {
  readonly host: string;
  readonly port: number;
  /** The URL a real client would use for the vault: `https://{keyVaultName}.vault.azure.net`. */
  url(keyVaultName: string): string;
  /**
   * CERTSCHED_VERIFY_CONNECT_TO entries (comma-separated) sending `{vault}.vault.azure.net:443`
   * here, one per vault the simulator's certificates name now; "" when none.
   */
  connectTo(): string;
  readonly requests: readonly VaultRequest[];
  /** Every version of a certificate (by its name in the vault), oldest first; the last is current. */
  versions(keyVaultName: string, certificateName: string): readonly HostingVaultVersion[];
  /**
   * Replaces a certificate's versions (by its name in the vault) with these, oldest first, each
   * created at its `created` (the sandbox stages a version history: sim/sandboxSync.ts). The
   * certificate must be one of the simulator's Key Vault certificates.
   */
  stageVersions(
    keyVaultName: string,
    certificateName: string,
    versions: readonly {
      readonly notBefore: Date;
      readonly notAfter: Date;
      readonly created: Date;
    }[],
  ): void;
  /**
   * Adds a version to one of the simulator's Key Vault certificates (by its name in the vault),
   * created now on the sim clock: it becomes the current one, and the event of a new version is
   * sent (as for a renewal landing, or a certificate created).
   */
  addVersion(
    keyVaultName: string,
    certificateName: string,
    dates: { readonly notBefore: Date; readonly notAfter: Date },
  ): HostingVaultVersion;
  /** Sets (undefined: stops) where the vault's events go from now on. */
  setEvents(target: VaultEventsOptions | undefined): void;
  /** Sends CertificateNearExpiry or CertificateExpired for a certificate's current version. */
  emitExpiry(
    keyVaultName: string,
    certificateName: string,
    kind: "near-expiry" | "expired",
  ): Promise<void>;
  /** Every delivery of events so far, in the order answered (a failed one too). */
  readonly deliveries: readonly VaultEventDelivery[];
  /** Resolves once every event sent so far is delivered or failed. */
  eventsSettled(): Promise<void>;
}

/** What the hosting side reads of the service: its certificates, and completed renewals. */
export interface HostingSource {
  /** The simulator's certificates after completing what is due on the sim clock (live, read-only). */
  certificates(): readonly SimCertificate[];
  onRenewed(listener: RenewedListener): () => void;
  /** The sim clock. */
  now(): Date;
  /** The resource the vault's challenge names (the identity provider's vault resource). */
  readonly vaultResource?: string;
  /** Why a bearer token is no vault token of the identity provider; undefined when it is one. */
  vaultToken?(token: string): string | undefined;
}
