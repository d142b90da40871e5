import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { escapeControl } from "../../lib/text/escapeControl.js";

/** The HTTPS port: what a browser connects to when the address names none. */
export const DEFAULT_TLS_PORT = 443;

/** What to probe: the name users type, and the port (443 unless given). */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** One endpoint named by a person: `NAME[:PORT]`, an IPv4 address, or `[IPv6][:PORT]`. */
export interface NamedEndpoint extends Endpoint {
  /**
   * As given, lower-cased: the result's `domain`, so it reads back as it was asked (an
   * internationalized name as written; `host` is its ASCII form).
   */
  readonly label: string;
}

const LABEL = "[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?";
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`, "i");

/**
 * Parses `text` (a --domain value, a CERTSCHED_WATCH entry); returns the endpoint or the rule
 * it breaks, for the caller to name its source in the error.
 */
export function parseEndpoint(text: string): NamedEndpoint | string {
  const value = text.trim().toLowerCase();
  const rule =
    "must be NAME[:PORT], e.g. www.contoso.com or www.contoso.com:8443 ([::1]:8443 for IPv6)";
  let host: string;
  let portText: string | undefined;
  if (value.includes("/")) return `"${escapeControl(text)}" ${rule}: the host name, not a URL`;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(value);
  if (bracketed) {
    host = bracketed[1] ?? "";
    portText = bracketed[2];
    if (isIP(host) !== 6)
      return `"${escapeControl(text)}" ${rule}: [${escapeControl(host)}] is not an IPv6 address`;
  } else {
    const parts = value.split(":");
    if (parts.length > 2)
      return `"${escapeControl(text)}" ${rule}: write IPv6 addresses in brackets`;
    host = parts[0] ?? "";
    portText = parts[1];
    // A trailing dot names the same host (an absolute name); certificates never carry it.
    host = host.replace(/\.$/, "");
    if (host.includes("*"))
      return `"${escapeControl(text)}" ${rule}: a wildcard is not an address to connect to`;
    // An internationalized name is looked up, sent as SNI and named in certificates in its
    // ASCII form (IDNA, as browsers do): bücher.de is xn--bcher-kva.de.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: any character beyond ASCII.
    if (/[^\u0000-\u007f]/.test(host)) host = domainToASCII(host);
    if (isIP(host) === 0 && !HOSTNAME.test(host)) return `"${escapeControl(text)}" ${rule}`;
  }
  let port = DEFAULT_TLS_PORT;
  if (portText !== undefined) {
    const n = Number(portText);
    if (!/^\d+$/.test(portText) || n < 1 || n > 65_535) {
      return `"${escapeControl(text)}" has port "${escapeControl(portText)}", which is not a whole number from 1 to 65535`;
    }
    port = n;
  }
  return { host, port, label: value.replace(/\.(?=:|$)/, "") };
}

/** An IPv6 address in its one canonical text (RFC 5952, as WHATWG URL writes it). */
export function canonicalIpv6(host: string): string {
  try {
    return new URL(`https://[${host}]/`).hostname.slice(1, -1);
  } catch {
    // A zone (fe80::1%eth0) is not URL syntax; it stays as written.
    return host;
  }
}

/**
 * What makes two endpoints the same place to look: host and port, whatever way they were
 * written (`a.test` and `a.test:443`, `[::1]` and `[0:0::1]`). One result per domain means one
 * per key; the first label given is the one shown.
 */
export function endpointKey(endpoint: Endpoint): string {
  const host = isIP(endpoint.host) === 6 ? `[${canonicalIpv6(endpoint.host)}]` : endpoint.host;
  return `${host}:${endpoint.port}`;
}
