import type { ConnectToRule } from "../verification/connectTo.js";
import type { Endpoint } from "../verification/endpoint.js";
import type { VerifySettings } from "../verification/verifySettings.js";

/**
 * The probes verification reads certificates with (adapters/probes/): a TLS handshake with an
 * endpoint, or a read of a vault's current version. They read; core/verification judges.
 */

export interface ProbeOptions {
  /** CERTSCHED_VERIFY_CONNECT_TO rules: where to connect instead (SNI stays `host`). */
  readonly connectTo?: readonly ConnectToRule[];
  /** The whole probe's time (DNS, TCP, handshake), in ms. */
  readonly timeoutMs: number;
  /**
   * Trusted certificates (PEM). Unset: Node's default store, which is its bundled roots plus
   * NODE_EXTRA_CA_CERTS, read by Node at start, exactly as every HTTPS call of Node sees it.
   * Tests pass `[...tls.rootCertificates, ...extra]`.
   */
  readonly ca?: readonly string[];
  /** NODE_EXTRA_CA_CERTS (VerifySettings): read where Node cannot list what it loaded (Node 20). */
  readonly extraCaCertsPath?: string | undefined;
  readonly signal?: AbortSignal;
  /**
   * The name came from the service (publicAddress.ts): unless a CERTSCHED_VERIFY_CONNECT_TO rule
   * names the host to connect to, connect only if every address it resolves to is public;
   * otherwise the probe is REFUSED without a connection being opened.
   */
  readonly publicOnly?: boolean;
}

/** The served leaf certificate, as read from the handshake. */
export interface ServedCertificate {
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** Issuer's distinguished name, `CN=..., O=...` (as the server sent it: escape to show). */
  readonly issuer: string;
  readonly subject: string;
  /** Serial number, upper-case hex. */
  readonly serial: string;
  /** SHA-256 of the DER certificate, upper-case hex without separators. */
  readonly thumbprint: string;
  /** SHA-1 of the DER certificate, 40 upper-case hex: the thumbprint Azure shows (estate matching). */
  readonly sha1Thumbprint?: string | undefined;
  /** subjectAltName entries, e.g. `DNS:www.contoso.com`, `IP Address:127.0.0.1`. */
  readonly altNames: readonly string[];
  /** The leaf's public key; undefined when Node cannot describe it (the weak check skips it). */
  readonly key?: PublicKeyFacts | undefined;
  /** The leaf's signature algorithm: its OID and, when known, its name (`sha256WithRSAEncryption`). */
  readonly signature?: SignatureFacts | undefined;
  /** Whether the leaf names itself as its issuer (and says so by key identifier, if any). */
  readonly selfIssued?: boolean | undefined;
  /** The ARI CertID (RFC 9773: Authority Key Identifier and serial); undefined without an AKI. */
  readonly certId?: string | undefined;
  /** SHA-256 of the DER SubjectPublicKeyInfo, 64 lower-case hex (Certificate Transparency's pubkey_sha256). */
  readonly pubkeySha256?: string | undefined;
  /** SHA-256 of the TBSCertificate as RFC 6962 hashes it (SCT list removed), 64 lower-case hex. */
  readonly tbsSha256?: string | undefined;
}

/** A certificate's public key, as a browser weighs it. */
export interface PublicKeyFacts {
  /** Node's asymmetricKeyType: `rsa`, `rsa-pss`, `ec`, `ed25519`, `dsa`... */
  readonly type: string;
  /** RSA modulus (or DSA prime) bits, EC curve bits; undefined for an unknown curve. */
  readonly bits: number | undefined;
  /** EC only: the curve's name (`prime256v1`, `secp384r1`). */
  readonly curve?: string | undefined;
}

export interface SignatureFacts {
  readonly oid: string;
  readonly name: string;
}

/** Why a chain does not verify: OpenSSL's code (e.g. UNABLE_TO_VERIFY_LEAF_SIGNATURE). */
export interface ChainProblem {
  readonly code: string;
}

export type ProbeResult =
  | {
      readonly reached: true;
      /** Where the connection went (after connect-to). */
      readonly connectedTo: string;
      readonly certificate: ServedCertificate;
      /** Undefined when the chain verifies against the trusted store. */
      readonly chainProblem: ChainProblem | undefined;
      /** tls.checkServerIdentity's reason when the certificate does not cover the name. */
      readonly nameProblem: string | undefined;
      /**
       * Whether the leaf's issuer is among the certificates the endpoint sent or the trust
       * anchors (tlsProbe.ts says how it is told); undefined where no chain was served (a vault).
       */
      readonly leafIssuerFound?: boolean | undefined;
    }
  | {
      readonly reached: false;
      readonly connectedTo: string;
      /**
       * DNS, TCP, TLS or TIMEOUT: which step failed. REFUSED: not attempted, the name from the
       * service resolves to an address that is not public (`publicOnly`).
       */
      readonly step: ProbeStep;
      /** Node's error code, when there is one (ENOTFOUND, ECONNREFUSED, ...). */
      readonly code: string | undefined;
      readonly message: string;
    };

export type ProbeStep = "DNS" | "TCP" | "TLS" | "TIMEOUT" | "REFUSED";

/** A vault certificate to read, as the inventory knows it. */
export interface VaultCertificate {
  readonly keyVaultName: string;
  /** The certificate's name in the vault; `certificateName` when unset. */
  readonly keyVaultCertificateName?: string | undefined;
  /** certsched's (the service's) name for the certificate. */
  readonly certificateName: string;
}

/** Where the tests' fake vault is; production passes nothing. */
export interface KeyVaultSeam {
  /**
   * The URL of vault `keyVaultName`; default `https://{keyVaultName}.vault.azure.net`. When set,
   * CERTSCHED_VERIFY_CONNECT_TO does not apply to the vault: the URL already says where it is.
   */
  readonly vaultUrl?: (keyVaultName: string) => string;
  /**
   * The SDK's CertificateClientOptions laid over ours (a fake's `tlsOptions: { ca }`, challenge
   * check off); typed loosely here, as core names no SDK type.
   */
  readonly clientOptions?: object;
}

export interface KeyVaultReadOptions {
  /**
   * timeoutMs bounds the whole read: token, connection, SDK retries. connectTo
   * (CERTSCHED_VERIFY_CONNECT_TO) redirects the vault host as it does a TLS probe.
   */
  readonly settings: Pick<VerifySettings, "timeoutMs"> & Partial<Pick<VerifySettings, "connectTo">>;
  readonly signal?: AbortSignal;
  readonly seam?: KeyVaultSeam;
  /**
   * This version of the certificate instead of the current one (a Key Vault event names it);
   * a version the vault does not hold is `not-found`.
   */
  readonly version?: string;
}

/** What went wrong when no certificate could be read. */
export type KeyVaultFailure =
  | "forbidden"
  | "not-found"
  | "unauthorized"
  | "token"
  | "timeout"
  | "cancelled"
  | "network"
  | "http"
  | "no-certificate"
  | "bad-certificate";

/** One read of the vault: the certificate in the TLS probe's shapes, or why there is none. */
export type KeyVaultRead =
  | (Extract<ProbeResult, { reached: true }> & {
      readonly version: string | undefined;
      /** When the current version was created in the vault (the SDK's properties.createdOn). */
      readonly createdOn?: Date | undefined;
    })
  | {
      readonly reached: false;
      readonly failure: KeyVaultFailure;
      /** HTTP status, when the vault answered. */
      readonly status?: number | undefined;
      /** One line for people, redacted and escaped. */
      readonly detail: string;
    };

/** The probes; each never throws for anything the network, a server or a vault does. */
export interface Probes {
  /** One TLS handshake with `endpoint`: what it serves. */
  tls(endpoint: Endpoint, options: ProbeOptions): Promise<ProbeResult>;
  /**
   * The current version of a vault certificate, with certsched's vault token. The vault name
   * must be checked first (core/verification/keyVaultName.ts): it becomes part of the host.
   */
  keyVault(target: VaultCertificate, options: KeyVaultReadOptions): Promise<KeyVaultRead>;
}
