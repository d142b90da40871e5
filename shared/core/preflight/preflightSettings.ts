import type { ConnectToRule } from "../verification/connectTo.js";

/** A DNS server preflight asks (CERTSCHED_DNS_SERVERS). */
export interface DnsServer {
  /** A host name or an IP address (IPv6 without brackets). */
  readonly host: string;
  /** Default 53. */
  readonly port: number;
}

/** The settings preflight reads (parsed by app/config/preflightSettings.ts, on first use). */
export interface PreflightSettings {
  /** CERTSCHED_ARM_URL: Azure Resource Manager, https, no trailing slash. */
  readonly armUrl: string;
  /** CERTSCHED_DNS_SERVERS; empty: the system's resolvers. */
  readonly dnsServers: readonly DnsServer[];
  /** CERTSCHED_CA_IDENTIFIERS (lower case): what a CAA issue/issuewild value must name. */
  readonly caIdentifiers: readonly string[];
  /**
   * CERTSCHED_PREFLIGHT_DAYS: the timer checks certificates within this many days of entering
   * the service's 20-day renewal window, and those already in it. Default 30.
   */
  readonly days: number;
  /** CERTSCHED_PREFLIGHT_TIMEOUT, ms: one DNS query, one HTTP request or one ARM call. Default 5 s. */
  readonly timeoutMs: number;
  /** CERTSCHED_VERIFY_CONNECT_TO, as verification reads it: where the HTTP challenge connects. */
  readonly connectTo: readonly ConnectToRule[];
}
