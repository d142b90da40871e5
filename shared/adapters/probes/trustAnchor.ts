import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import tls from "node:tls";
import type Forge from "node-forge";
import { forge } from "./forgeAsn1.js";

/**
 * A second opinion on a chain, asked only when OpenSSL's verdict is about dates. OpenSSL goes on
 * after an error and reports the last one, so an expired leaf from an unknown CA and an expired
 * leaf from a trusted CA both read CERT_HAS_EXPIRED; the contract puts `untrusted` before
 * `expired`. The chain Node hands back (getPeerCertificate(true)) ends at the root OpenSSL found
 * in its store, when it found one: it is anchored when every link is signed by the next and the
 * last is a self-issued certificate the store holds.
 */

export type Anchoring =
  | {
      readonly trusted: true;
      /** No certificate but the leaf is outside its validity dates (now, by the real clock). */
      readonly onlyLeafOutOfDate: boolean;
    }
  | { readonly trusted: false; readonly code: string };

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function fingerprints(pems: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const bundle of pems) {
    for (const pem of bundle.match(PEM) ?? []) {
      try {
        out.add(new X509Certificate(pem).fingerprint256);
      } catch {
        // Node skips a certificate it cannot read too; it cannot anchor anything.
      }
    }
  }
  return out;
}

/**
 * NODE_EXTRA_CA_CERTS as Node reads it at start: a PEM file added to the default store. Node 22
 * lists what it loaded; older Node does not, so the file named by the setting (parsed with the
 * verify settings, passed in) is read the same way.
 */
function extraCaCertificates(path: string | undefined): string[] {
  const withApi = tls as { getCACertificates?: (type: string) => string[] };
  if (typeof withApi.getCACertificates === "function") return withApi.getCACertificates("extra");
  if (path === undefined || path === "") return [];
  try {
    return [readFileSync(path, "utf8")];
  } catch {
    // Node warns about an unreadable file at start and goes on without it; so do we.
    return [];
  }
}

const defaultStores = new Map<string, Set<string>>();
const injectedStores = new WeakMap<readonly string[], Set<string>>();

function trustedFingerprints(
  ca: readonly string[] | undefined,
  extraCaCertsPath: string | undefined,
): Set<string> {
  if (ca === undefined) {
    const key = extraCaCertsPath ?? "";
    let store = defaultStores.get(key);
    if (store === undefined) {
      store = fingerprints([...tls.rootCertificates, ...extraCaCertificates(extraCaCertsPath)]);
      defaultStores.set(key, store);
    }
    return store;
  }
  let store = injectedStores.get(ca);
  if (store === undefined) {
    store = fingerprints(ca);
    injectedStores.set(ca, store);
  }
  return store;
}

function chainOf(peer: tls.DetailedPeerCertificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  let current: tls.DetailedPeerCertificate | undefined = peer;
  // Node links the root to itself; a server could send a loop. Stop at the first repeat.
  while (current?.raw !== undefined && !seen.has(current.fingerprint256)) {
    seen.add(current.fingerprint256);
    chain.push(new X509Certificate(current.raw));
    current = current.issuerCertificate;
  }
  return chain;
}

const BASIC_CONSTRAINTS = "2.5.29.19";
const KEY_USAGE = "2.5.29.15";
/** keyCertSign is bit 5 of keyUsage (RFC 5280 4.2.1.3): 0x04 in the first byte of the bits. */
const KEY_CERT_SIGN = 0x04;

/** The extensions of a DER certificate, by OID: their extnValue (DER), as binary strings. */
/** node-forge's reader; its typings lack the options object it takes (decodeBitStrings). */
const fromDer = forge.asn1.fromDer as unknown as (
  bytes: Forge.util.ByteStringBuffer,
  options: { readonly decodeBitStrings: boolean },
) => Forge.asn1.Asn1;

function extensions(der: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  // Only the structure is read (any key type): node-forge's certificate reader knows RSA only.
  const cert = fromDer(forge.util.createBuffer(der.toString("binary")), {
    decodeBitStrings: false,
  });
  const tbs = (cert.value as Forge.asn1.Asn1[])[0];
  const wrapper = (tbs?.value as Forge.asn1.Asn1[] | undefined)?.find(
    (v) => v.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && v.type === 3,
  );
  const list = (wrapper?.value as Forge.asn1.Asn1[] | undefined)?.[0]?.value;
  for (const extension of (list as Forge.asn1.Asn1[] | undefined) ?? []) {
    const parts = extension.value as Forge.asn1.Asn1[];
    const oid = parts[0];
    const value = parts[parts.length - 1];
    if (oid === undefined || value === undefined || typeof value.value !== "string") continue;
    out.set(forge.asn1.derToOid(forge.util.createBuffer(oid.value as string)), value.value);
  }
  return out;
}

/**
 * Why `cert` may not issue the certificate below it, as OpenSSL names it, or undefined. An
 * issuer must say CA:TRUE in basicConstraints and, when it has a keyUsage, keyCertSign
 * (RFC 5280 4.2.1.3, 4.2.1.9). A trust anchor without basicConstraints at all is an old v1
 * root, which OpenSSL accepts as a CA because the store holds it; anything else must say it.
 */
function issuerProblem(
  cert: X509Certificate,
  anchor: boolean,
  casBelow: number,
): string | undefined {
  let found: Map<string, string>;
  try {
    found = extensions(cert.raw);
  } catch {
    // Node read it, so its structure is DER; a part we cannot read cannot vouch for it.
    return "INVALID_CA";
  }
  const usage = found.get(KEY_USAGE);
  if (usage !== undefined) {
    // extnValue is a BIT STRING: tag, length, unused-bits count, then the bits.
    const bits = fromDer(forge.util.createBuffer(usage), { decodeBitStrings: false });
    const first = typeof bits.value === "string" ? bits.value.charCodeAt(1) : 0;
    if (Number.isNaN(first) || (first & KEY_CERT_SIGN) === 0) return "KEYUSAGE_NO_CERTSIGN";
  }
  // Node's `ca` is OpenSSL's X509_check_ca() == 1: basicConstraints CA:TRUE (and keyCertSign).
  if (!cert.ca && !(anchor && !found.has(BASIC_CONSTRAINTS))) return "INVALID_CA";
  // pathLenConstraint (RFC 5280 4.2.1.9): how many CA certificates may follow it in the path.
  const limit = pathLength(found.get(BASIC_CONSTRAINTS));
  if (limit !== undefined && casBelow > limit) return "PATH_LENGTH_EXCEEDED";
  return undefined;
}

/** basicConstraints' pathLenConstraint (its extnValue, DER), or undefined when it sets none. */
function pathLength(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  let sequence: Forge.asn1.Asn1;
  try {
    sequence = fromDer(forge.util.createBuffer(value), { decodeBitStrings: false });
  } catch {
    return undefined; // X509_check_ca already judged the extension Node could read
  }
  const parts = Array.isArray(sequence.value) ? sequence.value : [];
  const integer = parts.find(
    (p) => p.tagClass === forge.asn1.Class.UNIVERSAL && p.type === forge.asn1.Type.INTEGER,
  );
  if (integer === undefined || typeof integer.value !== "string") return undefined;
  // A non-negative DER INTEGER, big-endian; any value past 2^31 allows any real path.
  let n = 0;
  for (const byte of integer.value) n = Math.min(n * 256 + byte.charCodeAt(0), 2 ** 31);
  return n;
}

const EXTENDED_KEY_USAGE = "2.5.29.37";
/**
 * Purposes OpenSSL takes for a TLS server (X509_PURPOSE_SSL_SERVER: XKU_SSL_SERVER | XKU_SGC):
 * serverAuth, and the old Netscape and Microsoft server-gated-crypto ones.
 */
const SERVER_PURPOSES: ReadonlySet<string> = new Set([
  "1.3.6.1.5.5.7.3.1",
  "2.16.840.1.113730.4.1",
  "1.3.6.1.4.1.311.10.3.3",
]);

/**
 * Whether `cert` may serve TLS (or issue for a TLS server) by its extendedKeyUsage: none at all
 * allows every purpose; a list must name a server one (RFC 5280 4.2.1.12). OpenSSL checks it
 * on the leaf and every CA below the anchor before the dates, and reports only its last error.
 */
function mayServeTls(cert: X509Certificate): boolean {
  let value: string | undefined;
  try {
    value = extensions(cert.raw).get(EXTENDED_KEY_USAGE);
  } catch {
    return false;
  }
  if (value === undefined) return true;
  try {
    const list = fromDer(forge.util.createBuffer(value), { decodeBitStrings: false });
    const oids = (Array.isArray(list.value) ? list.value : [])
      .filter((o) => typeof o.value === "string")
      .map((o) => forge.asn1.derToOid(forge.util.createBuffer(o.value as string)));
    return oids.some((oid) => SERVER_PURPOSES.has(oid));
  } catch {
    return false;
  }
}

function inDate(cert: X509Certificate, now: number): boolean {
  return Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);
}

/** Whether the served chain reaches a trusted root; `ca` as in ProbeOptions. */
export function chainAnchored(
  peer: tls.DetailedPeerCertificate,
  ca: readonly string[] | undefined,
  now: number = Date.now(),
  extraCaCertsPath?: string,
): Anchoring {
  const chain = chainOf(peer);
  // The leaf and every CA below the anchor must be for a TLS server (the anchor is the store's).
  if (chain.slice(0, Math.max(1, chain.length - 1)).some((c) => !mayServeTls(c))) {
    return { trusted: false, code: "INVALID_PURPOSE" };
  }
  for (let i = 0; i + 1 < chain.length; i++) {
    const child = chain[i] as X509Certificate;
    const parent = chain[i + 1] as X509Certificate;
    // A signature proves who signed, not that the signer may issue: the contract puts
    // untrusted before expired, and OpenSSL reports only its last error (the leaf's dates).
    // Checked first, so the code names the cause (checkIssued refuses a keyUsage without
    // keyCertSign too, as a mere non-issuer).
    // The CA certificates between the parent and the leaf that are not self-issued (RFC 5280
    // 6.1.4 (l)): what the parent's pathLenConstraint counts.
    const casBelow = chain.slice(1, i + 1).filter((c) => !c.checkIssued(c)).length;
    const problem = issuerProblem(parent, i + 2 === chain.length, casBelow);
    if (problem !== undefined) return { trusted: false, code: problem };
    if (!child.checkIssued(parent) || !child.verify(parent.publicKey)) {
      return { trusted: false, code: "CERT_SIGNATURE_FAILURE" };
    }
  }
  const top = chain[chain.length - 1];
  if (top === undefined) return { trusted: false, code: "UNABLE_TO_GET_ISSUER_CERT" };
  const selfIssued = top.checkIssued(top) && top.verify(top.publicKey);
  if (!selfIssued) {
    return {
      trusted: false,
      code:
        chain.length === 1
          ? "UNABLE_TO_VERIFY_LEAF_SIGNATURE"
          : "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
    };
  }
  if (!trustedFingerprints(ca, extraCaCertsPath).has(top.fingerprint256)) {
    return {
      trusted: false,
      code: chain.length === 1 ? "DEPTH_ZERO_SELF_SIGNED_CERT" : "SELF_SIGNED_CERT_IN_CHAIN",
    };
  }
  return { trusted: true, onlyLeafOutOfDate: chain.slice(1).every((c) => inDate(c, now)) };
}
