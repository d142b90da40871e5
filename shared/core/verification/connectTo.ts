import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { ConfigError } from "../../lib/errors.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { canonicalIpv6 } from "./endpoint.js";

/**
 * CERTSCHED_VERIFY_CONNECT_TO: curl's `--connect-to` (https://curl.se/docs/manpage.html#--connect-to),
 * comma-separated. `HOST1:PORT1:HOST2:PORT2` sends a probe for HOST1:PORT1 to HOST2:PORT2
 * instead, while the TLS server name (SNI) and the name check still use HOST1. As in curl, an
 * empty HOST1 or PORT1 matches any host or port, an empty HOST2 or PORT2 keeps the original,
 * IPv6 addresses are written in brackets (`[::1]`), and the first matching entry wins.
 * Users behind split DNS need it; tests use it to reach loopback.
 */

export const CONNECT_TO_SETTING = "CERTSCHED_VERIFY_CONNECT_TO";

/** One entry; `undefined` host or port means "any" (HOST1, PORT1) or "unchanged" (HOST2, PORT2). */
export interface ConnectToRule {
  readonly fromHost: string | undefined;
  readonly fromPort: number | undefined;
  readonly toHost: string | undefined;
  readonly toPort: number | undefined;
}

/** Where to open the TCP connection for one endpoint. */
export interface Destination {
  readonly host: string;
  readonly port: number;
}

const HOSTNAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;
const IPV6 = /^[0-9a-f:.]+(?:%[\w.-]+)?$/i;

/** The host field at `text[start]`: bracketed IPv6 or up to the next colon. */
function readHost(text: string, start: number): { host: string; next: number } | string {
  if (text[start] === "[") {
    const close = text.indexOf("]", start);
    if (close === -1) return 'has "[" without "]" (write IPv6 addresses as [::1])';
    const host = text.slice(start + 1, close);
    if (!host.includes(":") || !IPV6.test(host))
      return `has "[${escapeControl(host)}]", which is not an IPv6 address`;
    return { host, next: close + 1 };
  }
  const colon = text.indexOf(":", start);
  const end = colon === -1 ? text.length : colon;
  const written = text.slice(start, end);
  // An internationalized name in its ASCII form (IDNA), as --domain and CERTSCHED_WATCH take it.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: any character beyond ASCII.
  const ascii = /[^\u0000-\u007f]/.test(written) ? domainToASCII(written) : written;
  const host = ascii === "" ? written : ascii;
  if (host.includes("[") || host.includes("]")) return 'has a "[" or "]" out of place';
  if (host !== "" && !HOSTNAME.test(host)) {
    return `has "${escapeControl(host)}", which is not a host name or IPv4 address (IPv6 goes in brackets)`;
  }
  return { host, next: end };
}

function readPort(field: string): number | undefined | string {
  if (field === "") return undefined;
  const n = Number(field);
  if (!/^\d+$/.test(field) || n < 1 || n > 65_535) {
    return `has port "${escapeControl(field)}", which is not a whole number from 1 to 65535`;
  }
  return n;
}

function parseEntry(entry: string): ConnectToRule | string {
  const parts: string[] = [];
  let i = 0;
  // Four fields: host, port, host, port; hosts may hold colons inside brackets.
  for (let field = 0; field < 4; field++) {
    if (field % 2 === 0) {
      const host = readHost(entry, i);
      if (typeof host === "string") return host;
      parts.push(host.host);
      i = host.next;
    } else {
      const colon = entry.indexOf(":", i);
      const end = colon === -1 ? entry.length : colon;
      parts.push(entry.slice(i, end));
      i = end;
    }
    if (field < 3) {
      if (entry[i] !== ":") return "must have four fields, HOST1:PORT1:HOST2:PORT2";
      i += 1;
    }
  }
  if (i !== entry.length) return "must have four fields, HOST1:PORT1:HOST2:PORT2";
  const [fromHost = "", fromPortText = "", toHost = "", toPortText = ""] = parts;
  const fromPort = readPort(fromPortText);
  if (typeof fromPort === "string") return fromPort;
  const toPort = readPort(toPortText);
  if (typeof toPort === "string") return toPort;
  return {
    fromHost: fromHost === "" ? undefined : fromHost.toLowerCase(),
    fromPort,
    toHost: toHost === "" ? undefined : toHost.toLowerCase(),
    toPort,
  };
}

const problem = (message: string) => new ConfigError([{ name: CONNECT_TO_SETTING, message }]);

/**
 * Parses the setting's value; blank means no rules. Throws a ConfigError naming the setting,
 * the entry (its position and text) and the rule it breaks.
 */
export function parseConnectTo(text: string | undefined): ConnectToRule[] {
  if (text === undefined || text.trim() === "") return [];
  const entries = text.split(",");
  return entries.map((raw, index) => {
    const entry = raw.trim();
    const where = `entry ${index + 1} of ${entries.length}`;
    if (entry === "") {
      throw problem(
        `${where} is empty: write HOST1:PORT1:HOST2:PORT2 entries separated by single commas`,
      );
    }
    const rule = parseEntry(entry);
    if (typeof rule === "string") {
      throw problem(`${where} ("${escapeControl(entry)}") ${rule}`);
    }
    return rule;
  });
}

/**
 * Host names compare without case and without a trailing dot; IPv6 addresses as addresses
 * (`::1` is `0:0::1`), without brackets.
 */
function sameHost(a: string, b: string): boolean {
  const norm = (h: string) =>
    isIP(h) === 6 ? canonicalIpv6(h) : h.toLowerCase().replace(/\.$/, "");
  return norm(a) === norm(b);
}

/** The first rule matching `host:port`, if any. */
export function matchingRule(
  rules: readonly ConnectToRule[],
  host: string,
  port: number,
): ConnectToRule | undefined {
  return rules.find(
    (rule) =>
      (rule.fromHost === undefined || sameHost(rule.fromHost, host)) &&
      (rule.fromPort === undefined || rule.fromPort === port),
  );
}

/** Where to connect for `host:port`: the first matching rule's target, else the endpoint itself. */
export function resolveConnectTo(
  rules: readonly ConnectToRule[],
  host: string,
  port: number,
): Destination {
  const rule = matchingRule(rules, host, port);
  return rule === undefined
    ? { host, port }
    : { host: rule.toHost ?? host, port: rule.toPort ?? port };
}
