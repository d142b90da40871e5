/**
 * What preflight looks at (adapters/preflight/): DNS through the configured servers, Azure
 * Resource Manager through Azure's SDKs, and the app's HTTP challenge path. Each call is bounded
 * in time and size and never throws: every outcome is one of these values, and every `detail` is
 * one line, redacted and escaped (core/preflight/ judges; adapters only read).
 */

/** A DNS answer for one name and type. */
export type DnsAnswer<T> =
  /** Records of the type at the name (aliases followed by the resolver). */
  | { readonly kind: "records"; readonly records: readonly T[] }
  /** NXDOMAIN or no records of that type (NODATA): an empty set. */
  | { readonly kind: "none" }
  /** No decision: timeout, SERVFAIL, refused, unreachable server. */
  | { readonly kind: "unknown"; readonly detail: string };

/** One CAA resource record (RFC 8659 4.1): tag as sent (compare case-insensitively). */
export interface CaaRecord {
  /** The flags octet; bit 128 is the issuer-critical flag. */
  readonly flags: number;
  readonly tag: string;
  readonly value: string;
}

export interface DnsLookups {
  /** CAA records at exactly `name` (no tree climbing: core/preflight/caa.ts climbs). */
  caa(name: string, signal?: AbortSignal): Promise<DnsAnswer<CaaRecord>>;
  /** NS records of `name`, as host names. */
  ns(name: string, signal?: AbortSignal): Promise<DnsAnswer<string>>;
}

/** An answer of Azure Resource Manager. */
export type ArmAnswer<T> =
  | { readonly kind: "found"; readonly value: T }
  /** 404: the resource does not exist. */
  | { readonly kind: "missing"; readonly detail: string }
  /** 401 (or no token could be obtained: the identity provider refused) or 403. */
  | { readonly kind: "refused"; readonly status: 401 | 403; readonly detail: string }
  /** No decision: timeout, 5xx, an unreadable answer. */
  | { readonly kind: "unknown"; readonly detail: string };

/** Where an App Service app is: `slot` unset for the production slot. */
export interface SiteRef {
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly site: string;
  readonly slot?: string | undefined;
}

export interface ArmLookups {
  /** GET …/resourceGroups/{rg}/providers/Microsoft.Network/dnsZones/{zone}: its nameServers. */
  dnsZone(
    subscriptionId: string,
    resourceGroup: string,
    zone: string,
    signal?: AbortSignal,
  ): Promise<ArmAnswer<{ readonly nameServers: readonly string[] }>>;
  /** GET …/sites/{site}[/slots/{slot}]/hostNameBindings: the bound host names (lower case). */
  hostNameBindings(site: SiteRef, signal?: AbortSignal): Promise<ArmAnswer<readonly string[]>>;
  /** GET /subscriptions/{s}/providers/Microsoft.Web/sites, every page: each site's hostNames. */
  sites(
    subscriptionId: string,
    signal?: AbortSignal,
  ): Promise<
    ArmAnswer<readonly { readonly name: string; readonly hostNames: readonly string[] }[]>
  >;
}

/** What the app answered at http://{domain}/.well-known/acme-challenge/…. */
export type ChallengeAnswer =
  /** Any HTTP status from the app itself (404 included). */
  | { readonly kind: "answered"; readonly status: number }
  /** Connection refused, timeout, TLS-only, a redirect to another host. */
  | { readonly kind: "unreachable"; readonly detail: string };

export interface ChallengeProbe {
  reach(domain: string, signal?: AbortSignal): Promise<ChallengeAnswer>;
}

/** Everything preflight reads, for one account. */
export interface PreflightProbes {
  readonly dns: DnsLookups;
  readonly arm: ArmLookups;
  readonly challenge: ChallengeProbe;
}
