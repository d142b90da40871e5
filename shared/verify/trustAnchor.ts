import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import tls from "node:tls";

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

/** NODE_EXTRA_CA_CERTS as Node reads it at start: a PEM file added to the default store. */
function extraCaCertificates(): string[] {
  const withApi = tls as { getCACertificates?: (type: string) => string[] };
  if (typeof withApi.getCACertificates === "function") return withApi.getCACertificates("extra");
  const path = process.env.NODE_EXTRA_CA_CERTS;
  if (path === undefined || path === "") return [];
  try {
    return [readFileSync(path, "utf8")];
  } catch {
    // Node warns about an unreadable file at start and goes on without it; so do we.
    return [];
  }
}

let defaultStore: Set<string> | undefined;
const injectedStores = new WeakMap<readonly string[], Set<string>>();

function trustedFingerprints(ca: readonly string[] | undefined): Set<string> {
  if (ca === undefined) {
    defaultStore ??= fingerprints([...tls.rootCertificates, ...extraCaCertificates()]);
    return defaultStore;
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

function inDate(cert: X509Certificate, now: number): boolean {
  return Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);
}

/** Whether the served chain reaches a trusted root; `ca` as in ProbeOptions. */
export function chainAnchored(
  peer: tls.DetailedPeerCertificate,
  ca: readonly string[] | undefined,
  now: number = Date.now(),
): Anchoring {
  const chain = chainOf(peer);
  for (let i = 0; i + 1 < chain.length; i++) {
    const child = chain[i] as X509Certificate;
    const parent = chain[i + 1] as X509Certificate;
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
  if (!trustedFingerprints(ca).has(top.fingerprint256)) {
    return {
      trusted: false,
      code: chain.length === 1 ? "DEPTH_ZERO_SELF_SIGNED_CERT" : "SELF_SIGNED_CERT_IN_CHAIN",
    };
  }
  return { trusted: true, onlyLeafOutOfDate: chain.slice(1).every((c) => inDate(c, now)) };
}
