/**
 * The estate: every certificate an account's identity can see in its subscriptions, wherever it
 * is bound, found through Azure Resource Graph and each readable vault's certificate list. Read
 * from upstreams, so every field here is validated, bounded and escaped where it is made
 * (adapters/estate/), and nothing here is trusted as a command.
 */

/** Where a certificate was found. */
export type EstateKind =
  /** Microsoft.Web/certificates: an App Service certificate (uploaded, or from a vault). */
  | "app-service-certificate"
  /** Microsoft.Network/applicationGateways: a listener's certificate (sslCertificates). */
  | "application-gateway"
  /** Microsoft.Cdn/profiles (Front Door, CDN): a custom domain's certificate. */
  | "front-door"
  /** A Key Vault's certificate, from the vault's own list. */
  | "key-vault";

/** One place a certificate is used. */
export interface EstateBinding {
  /** site, slot, listener, custom domain. */
  readonly kind: "site" | "slot" | "listener" | "custom-domain";
  /** The binding resource's ARM id (lower-case), escaped. */
  readonly resourceId: string;
  /** The host name it serves there, lower-case, when known. */
  readonly hostName?: string | undefined;
}

/** Bounds on what one discovered certificate keeps. */
export const MAX_HOST_NAMES = 100;
export const MAX_BINDINGS = 100;
export const MAX_ESTATE_TEXT = 300;

export interface EstateCertificate {
  /**
   * Its key in the report: the ARM resource id (lower-case) for an App Service certificate or a
   * gateway's certificate (`{gateway id}/sslcertificates/{name}`), the custom domain's id for
   * Front Door, `https://{vault}.vault.azure.net/certificates/{name}` for a vault's.
   */
  readonly id: string;
  readonly kind: EstateKind;
  /** Its name where it lives (escaped, at most MAX_ESTATE_TEXT). */
  readonly name: string;
  /** Lower-case GUID. */
  readonly subscriptionId: string;
  readonly resourceGroup?: string | undefined;
  /**
   * Thumbprint as Azure shows it: SHA-1 of the DER certificate, 40 upper-case hex, no
   * separators (whatever case and spaces the upstream wrote). Undefined when not given.
   */
  readonly thumbprint?: string | undefined;
  readonly notBefore?: Date | undefined;
  readonly expiresAt?: Date | undefined;
  readonly issuer?: string | undefined;
  readonly subject?: string | undefined;
  /** Names it covers (subject and SANs as the upstream lists them), lower-case, at most MAX_HOST_NAMES. */
  readonly hostNames: readonly string[];
  /** More host names than kept. */
  readonly moreHostNames: number;
  /**
   * The vault certificate or secret it comes from, lower-case, without a version:
   * `https://{vault}.vault.azure.net/{certificates|secrets}/{name}`; undefined: not from a vault.
   */
  readonly keyVaultId?: string | undefined;
  /** Where it is used; empty: bound nowhere. At most MAX_BINDINGS. */
  readonly boundTo: readonly EstateBinding[];
  /** Key Vault: the policy renews it itself (a lifetime action AutoRenew); undefined: not known. */
  readonly autoRenew?: boolean | undefined;
  /** What could not be read of it, one line each (escaped, bounded). */
  readonly problems: readonly string[];
}

/** Why a part of the estate could not be read (a subscription, a vault, a page). */
export interface EstateProblem {
  /** What was being read: `subscription <id>`, `vault <name>`, `Resource Graph`. */
  readonly where: string;
  /** One line: escaped, bounded, never a token. */
  readonly detail: string;
  readonly status?: number | undefined;
}

/** Everything discovered for one account in one run. */
export interface EstateDiscovery {
  readonly account: string;
  readonly at: Date;
  readonly certificates: readonly EstateCertificate[];
  /** One per part that could not be read; the rest of the report stands. */
  readonly problems: readonly EstateProblem[];
  /** Rows or certificates left out because a bound was reached (counted, never silently). */
  readonly truncated: number;
}
