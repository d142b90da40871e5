import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { shownName } from "../../lib/text/names.js";
import { MAX_DNS_NAME } from "./issuance.js";

/**
 * DNS names as the Certificate Transparency watch compares them: lower-case ASCII (an
 * internationalized name in Punycode, as the watcher reports names), no trailing dot.
 */

/** One label: letters, digits, hyphens and underscores (lenient: the watcher judges the rest). */
const LABEL = /^[a-z0-9_-]{1,63}$/;

/** A name as a problem shows it: quoted, control and bidi characters visible, long ones cut. */
export const quotedName = (text: string) => `"${escapeControl(shownName(text))}"`;

/**
 * The name to ask the watcher about, or why it cannot be one. `*.` is not accepted here: the
 * callers decide what a wildcard stands for.
 */
export function dnsName(text: string): { readonly name: string } | { readonly problem: string } {
  const trimmed = text.trim().toLowerCase().replace(/\.$/, "");
  if (trimmed === "") return { problem: "is empty" };
  const bare = trimmed.replace(/^\[(.*)\]$/, "$1");
  if (isIP(bare) !== 0) {
    return { problem: "is an IP address: Certificate Transparency is searched by DNS name" };
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: any character beyond ASCII.
  const ascii = /[^\u0000-\u007f]/.test(trimmed) ? domainToASCII(trimmed) : trimmed;
  if (ascii === "")
    return { problem: "is not a DNS name (its characters do not make an internationalized name)" };
  if (ascii.length > MAX_DNS_NAME) {
    return { problem: `is not a DNS name (longer than ${MAX_DNS_NAME} characters)` };
  }
  const labels = ascii.split(".");
  if (labels.length < 2) {
    return {
      problem:
        "is a single label (a top-level domain or a local name): name a registered domain or a name under one",
    };
  }
  if (!labels.every((label) => LABEL.test(label))) {
    return {
      problem: "is not a DNS name (labels of letters, digits and hyphens, separated by dots)",
    };
  }
  return { name: ascii };
}

/** Whether `name` is `parent` itself or under it, at any depth. */
export const isAtOrUnder = (name: string, parent: string) =>
  name === parent || name.endsWith(`.${parent}`);

/** Whether a certificate name (maybe `*.a.b`) is valid for `host` (maybe `*.a.b`), either way. */
export function namesMatch(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return true;
  return wildcardCovers(x, y) || wildcardCovers(y, x);
}

/** `*.a.b` covers `x.a.b`: exactly one label in place of the star (RFC 6125 6.4.3). */
function wildcardCovers(wildcard: string, host: string): boolean {
  if (!wildcard.startsWith("*.") || host.startsWith("*.")) return false;
  const dot = host.indexOf(".");
  return dot > 0 && host.slice(dot + 1) === wildcard.slice(2);
}
