import { X509Certificate } from "node:crypto";
import { BlockList, isIP } from "node:net";
import tls from "node:tls";
import type { ChainProblem } from "../../core/ports/probes.js";
import { isWeakSignature, weakKeyReason } from "../../core/verification/browserChecks.js";
import { keyOf, signatureOf } from "./certificateFacts.js";
import { chainAnchored } from "./trustAnchor.js";

/**
 * What a completed handshake says of the served certificate (tlsProbe.ts): whether its chain
 * reaches a trusted root, and whether it names the host asked for. The probe accepts any
 * certificate, so each gets its own status.
 */

/** OpenSSL verify errors about validity dates: they may hide an untrusted chain (trustAnchor.ts). */
const TIME_ERRORS: ReadonlySet<string> = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]);

/**
 * What OpenSSL reports when a leaf falls under its security level: a SHA-1 signature (OpenSSL 3:
 * UNSPECIFIED from its signature-level check, or CA_MD_TOO_WEAK) or, on OpenSSL 3.5 (Node 24),
 * an RSA key under 2048 bits too (UNSPECIFIED, or EE_KEY_TOO_SMALL); OpenSSL 3.0 (Node 22) lets
 * a 1024-bit key through. Reported last, it may hide an untrusted chain too.
 */
const LEVEL_ERRORS: ReadonlySet<string> = new Set([
  "UNSPECIFIED",
  "CA_MD_TOO_WEAK",
  "EE_KEY_TOO_SMALL",
]);

/** Whether the leaf's own key is one the judge calls `weak`. */
function weakKey(raw: Buffer): boolean {
  try {
    return weakKeyReason(keyOf(new X509Certificate(raw))) !== undefined;
  } catch {
    return false;
  }
}

/**
 * The chain's verdict. OpenSSL reports one error, the last it met: an expired leaf from an
 * unknown CA reads CERT_HAS_EXPIRED, as an expired leaf from a trusted CA does. A time error is
 * therefore checked again: the chain must reach a trusted root with every signature good.
 */
export function chainVerdict(
  socket: tls.TLSSocket,
  peer: tls.DetailedPeerCertificate,
  ca: readonly string[] | undefined,
  extraCaCertsPath: string | undefined,
): ChainProblem | undefined {
  const error = socket.authorizationError;
  if (socket.authorized || error === null || error === undefined) return undefined;
  const code =
    typeof error === "string" ? error : ((error as { code?: string }).code ?? String(error));
  // A SHA-1 leaf, or one with a small key, is the judge's `weak` (docs/contracts/verify.md):
  // only a chain that fails for another reason too is untrusted, so it is asked again without
  // OpenSSL's digest and key-size rules.
  const weakLeaf =
    LEVEL_ERRORS.has(code) && (isWeakSignature(signatureOf(peer.raw)?.oid) || weakKey(peer.raw));
  if (TIME_ERRORS.has(code) || weakLeaf) {
    const anchored = chainAnchored(peer, ca, Date.now(), extraCaCertsPath);
    // The leaf's own dates are judged by the judge, with its clock; any other time error stays.
    if (anchored.trusted && anchored.onlyLeafOutOfDate) return undefined;
    if (!anchored.trusted) return { code: anchored.code };
  }
  return { code };
}

/**
 * tls.checkServerIdentity, except for an IPv6 address: Node 22 runs the host through
 * domainToASCII first, which turns `::1` into "" and so refuses every IPv6 address whatever the
 * certificate's IP entries say (Node 20 matched them). An address is covered by an `IP Address`
 * entry naming the same address in any spelling, as RFC 6125 and browsers have it.
 */
export function serverIdentityError(host: string, peer: tls.PeerCertificate): Error | undefined {
  if (isIP(host) !== 6) return tls.checkServerIdentity(host, peer);
  const addresses = (peer.subjectaltname ?? "")
    .split(", ")
    .filter((entry) => entry.startsWith("IP Address:"))
    .map((entry) => entry.slice("IP Address:".length));
  const wanted = new BlockList();
  wanted.addAddress(host, "ipv6");
  if (addresses.some((address) => isIP(address) === 6 && wanted.check(address, "ipv6"))) {
    return undefined;
  }
  return new Error(
    `IP: ${host} is not in the cert's list: ${addresses.length > 0 ? addresses.join(", ") : "(no IP entries)"}`,
  );
}
