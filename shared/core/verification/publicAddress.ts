import { BlockList, isIP } from "node:net";
import { domainToASCII } from "node:url";

/**
 * Where a name from the service may send a probe. The service's due list is
 * readable by any Reader and written by someone else: a rootDomain of `127.0.0.1:6379` or a
 * name whose DNS answers 10.0.0.5 would make certsched connect inside its own network, and the
 * result (refused, wrong version, timeout) would be a port scan of it. So a name from the
 * service is probed only on port 443 of a public address; the operator's own words
 * (CERTSCHED_WATCH, --domain, a CERTSCHED_VERIFY_CONNECT_TO target) may name anything.
 */

/** Ranges no name from the service may reach (IANA special-purpose registries). */
const NOT_PUBLIC_V4: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT, shared
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

const NOT_PUBLIC_V6: readonly (readonly [string, number])[] = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::ffff:0:0:0", 96], // IPv4-translated (SIIT): an IPv4 address behind a translator
  ["64:ff9b:1::", 48], // local-use NAT64 (RFC 8215): reaches the IPv4 network of the site
  ["100::", 64], // discard
  ["2001::", 32], // Teredo: an IPv4 server and client carried (obfuscated) inside
  ["2001:db8::", 32], // documentation
  ["3fff::", 20], // documentation (RFC 9637)
  ["5f00::", 16], // SRv6 segment identifiers (RFC 9602), never a host
  ["fc00::", 7], // unique local (private)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated, still routed inside some networks)
  ["ff00::", 8], // multicast
];

const blocked = new BlockList();
for (const [net, prefix] of NOT_PUBLIC_V4) blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of NOT_PUBLIC_V6) blocked.addSubnet(net, prefix, "ipv6");

/** The 16 bytes of an IPv6 address (zone dropped); undefined when it is not one. */
function ipv6Bytes(address: string): number[] | undefined {
  const text = address.replace(/%.*$/, "");
  if (isIP(text) !== 6) return undefined;
  let head = text;
  const tail: number[] = [];
  // An embedded dotted quad (::ffff:127.0.0.1) is the last 32 bits.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad?.[1] !== undefined) {
    tail.push(...quad[1].split(".").map(Number));
    head = text.slice(0, -quad[1].length);
    if (head.endsWith(":") && !head.endsWith("::")) head = head.slice(0, -1);
  }
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const [left = "", right] = head.split("::");
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const missing = 8 - tail.length / 2 - l.length - r.length;
  const words = [...l, ...new Array<number>(right === undefined ? 0 : missing).fill(0), ...r];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  return [...bytes, ...tail];
}

/**
 * IPv6 forms that carry an IPv4 address a host may end up talking to: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4
 * (2002:AABB:CCDD::): judged by that IPv4 address too.
 */
function embeddedIpv4(bytes: readonly number[]): string | undefined {
  const prefixIs = (expected: readonly number[]) => expected.every((b, i) => bytes[i] === b);
  const last4 = () => bytes.slice(12, 16).join(".");
  if (prefixIs([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) return last4();
  if (prefixIs([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])) return last4();
  if (prefixIs([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return last4();
  if (prefixIs([0x20, 0x02])) return bytes.slice(2, 6).join(".");
  return undefined;
}

/** Whether `address` (an IPv4 or IPv6 literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ""));
  if (family === 4) return !blocked.check(address, "ipv4");
  if (family !== 6) return false;
  const bytes = ipv6Bytes(address);
  if (bytes === undefined) return false;
  const v6 = address.replace(/%.*$/, "");
  if (blocked.check(v6, "ipv6")) return false;
  const v4 = embeddedIpv4(bytes);
  return v4 === undefined || !blocked.check(v4, "ipv4");
}

/** The rule, in the words every refusal uses (docs/verification.md says the same). */
export const SERVICE_NAME_RULE =
  "a name from the service is probed only as a DNS host name on port 443 at a public address; name the endpoint in CERTSCHED_WATCH or route it with CERTSCHED_VERIFY_CONNECT_TO to check it anyway";

/** The last label is a number (decimal, 0x hex, or empty hex): WHATWG URL and inet_aton read the name as IPv4. */
const NUMERIC_LAST_LABEL = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/i;

/** Why `value` (trimmed, lower-cased) is not a DNS host name to probe, or undefined. */
function hostProblem(value: string): string | undefined {
  const host = value.startsWith("[") ? value : value.replace(/\.$/, "");
  if (host.startsWith("[") || isIP(host) === 6) return "it is an IP address, not a DNS host name";
  if (host.includes(":")) return "it carries a port";
  if (isIP(host) === 4 || NUMERIC_LAST_LABEL.test(host)) {
    return "it is an IP address, not a DNS host name";
  }
  if (host === "localhost" || host.endsWith(".localhost")) {
    return "it is a loopback name (localhost)";
  }
  return undefined;
}

/**
 * Why a host name from the service may not be probed, judged on the text alone, or undefined.
 * A port, an IP literal in any spelling (IPv6, IPv4-mapped, 2130706433, 0x7f.1, 0177.0.0.1,
 * 127.1) and the loopback names of RFC 6761 (localhost, *.localhost, with or without the
 * trailing dot) are refused; what the name resolves to is checked at connection time
 * (publicOnlyLookup). A name beyond ASCII is judged in the ASCII form it is looked up and
 * connected to (IDNA, parseEndpoint): "１２７.０.０.１", "127。0。0。1" and "ｌｏｃａｌｈｏｓｔ" are
 * 127.0.0.1 and localhost there, and are refused as such.
 */
export function serviceNameProblem(text: string): string | undefined {
  const value = text.trim().toLowerCase();
  const written = hostProblem(value);
  if (written !== undefined) return written;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: any character beyond ASCII.
  if (!/[^\u0000-\u007f]/.test(value)) return undefined;
  const ascii = domainToASCII(value);
  return ascii === "" ? undefined : hostProblem(ascii);
}

/** The error a refused lookup fails the connection with. */
export const NOT_PUBLIC_CODE = "ERR_CERTSCHED_NOT_PUBLIC";
