import { X509Certificate } from "node:crypto";
import { BlockList, isIP } from "node:net";
import tls from "node:tls";
import type {
  ChainProblem,
  ProbeOptions,
  ProbeResult,
  ProbeStep,
  ServedCertificate,
} from "../../core/ports/probes.js";
import { isWeakSignature } from "../../core/verification/browserChecks.js";
import { matchingRule, resolveConnectTo } from "../../core/verification/connectTo.js";
import type { Endpoint } from "../../core/verification/endpoint.js";
import { isPublicAddress, NOT_PUBLIC_CODE } from "../../core/verification/publicAddress.js";
import { whenAborted } from "../../lib/abort.js";
import { ensureError } from "../../lib/errors.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { derFacts, keyOf, leafIssuerFound, selfIssued, signatureOf } from "./certificateFacts.js";
import { publicOnlyLookup } from "./publicOnlyLookup.js";
import { chainAnchored } from "./trustAnchor.js";

/**
 * One TLS probe: connect with SNI, read the served certificate, close. Nothing is ever written
 * on the connection (no HTTP request, no byte of application data): the handshake alone says
 * what a browser would be shown, and a probe must not count as a visit or trigger anything.
 */

/** How long a clean close may take before the socket is destroyed, in ms. */
const CLOSE_GRACE_MS = 1_000;

/** OpenSSL verify errors about validity dates: they may hide an untrusted chain (trustAnchor.ts). */
const TIME_ERRORS: ReadonlySet<string> = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]);

/**
 * What OpenSSL 3 reports for a SHA-1 signature at Node's security level (UNSPECIFIED from its
 * signature-level check, or CA_MD_TOO_WEAK): reported last, it may hide an untrusted chain too.
 */
const DIGEST_ERRORS: ReadonlySet<string> = new Set(["UNSPECIFIED", "CA_MD_TOO_WEAK"]);

const DNS_CODES: ReadonlySet<string> = new Set([
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EAI_NONAME",
]);
const TCP_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "EPIPE",
]);

function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * A validity date as a Date. OpenSSL prints a time it cannot read ("month 13") as "Bad time
 * value", which Date reads as Invalid Date: thrown here, so the certificate is unreadable
 * rather than every later step (ISO dates, days left) throwing for the whole run.
 */
function validityDate(text: string, field: "notBefore" | "notAfter"): Date {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) {
    throw new Error(`its ${field} is not a valid time (${escapeControl(text)})`);
  }
  return date;
}

/**
 * Reads a DER certificate as the judge needs it; throws for one that cannot be read (Node's
 * parser refuses it, or its dates are not times). Shared with the vault's reader.
 */
export function describeCertificate(der: Uint8Array): ServedCertificate {
  const x509 = new X509Certificate(der);
  return {
    notBefore: validityDate(x509.validFrom, "notBefore"),
    notAfter: validityDate(x509.validTo, "notAfter"),
    issuer: x509.issuer.split("\n").join(", "),
    subject: x509.subject.split("\n").join(", "),
    serial: x509.serialNumber.toUpperCase(),
    thumbprint: x509.fingerprint256.replaceAll(":", "").toUpperCase(),
    altNames: (x509.subjectAltName ?? "").split(", ").filter((n) => n !== ""),
    key: keyOf(x509),
    ...derFacts(der),
    selfIssued: selfIssued(x509),
  };
}

/**
 * The chain's verdict. OpenSSL reports one error, the last it met: an expired leaf from an
 * unknown CA reads CERT_HAS_EXPIRED, as an expired leaf from a trusted CA does. A time error is
 * therefore checked again: the chain must reach a trusted root with every signature good.
 */
function chainVerdict(
  socket: tls.TLSSocket,
  peer: tls.DetailedPeerCertificate,
  ca: readonly string[] | undefined,
  extraCaCertsPath: string | undefined,
): ChainProblem | undefined {
  const error = socket.authorizationError;
  if (socket.authorized || error === null || error === undefined) return undefined;
  const code =
    typeof error === "string" ? error : ((error as { code?: string }).code ?? String(error));
  // A SHA-1 leaf is the judge's `weak` (contracts/verify.md): only a chain that fails for
  // another reason too is untrusted, so it is asked again without OpenSSL's digest rule.
  const weakLeaf = DIGEST_ERRORS.has(code) && isWeakSignature(signatureOf(peer.raw)?.oid);
  if (TIME_ERRORS.has(code) || weakLeaf) {
    const anchored = chainAnchored(peer, ca, Date.now(), extraCaCertsPath);
    // The leaf's own dates are judged by the judge, with its clock; any other time error stays.
    if (anchored.trusted && anchored.onlyLeafOutOfDate) return undefined;
    if (!anchored.trusted) return { code: anchored.code };
  }
  return { code };
}

/**
 * One SecureContext per trust list, made on first use. tls.connect otherwise builds a new one
 * (a fresh OpenSSL SSL_CTX, the CA list loaded into it) for every connection: about 8% of a
 * verification run's CPU. Sharing is safe: the context holds only the trust list (the options
 * tls.connect would build it from), and Node keeps no client sessions in it (its session cache
 * is NO_INTERNAL), so no probe resumes another's session and each reads the certificate afresh.
 * The default context is Node's store as tls.connect's own default is: its bundled roots plus
 * NODE_EXTRA_CA_CERTS, which Node reads once at start.
 */
let defaultContext: tls.SecureContext | undefined;
const injectedContexts = new WeakMap<readonly string[], tls.SecureContext>();

function secureContextFor(ca: readonly string[] | undefined): tls.SecureContext {
  if (ca === undefined) {
    defaultContext ??= tls.createSecureContext();
    return defaultContext;
  }
  let context = injectedContexts.get(ca);
  if (context === undefined) {
    context = tls.createSecureContext({ ca: [...ca] });
    injectedContexts.set(ca, context);
  }
  return context;
}

/**
 * An error's words for people. OpenSSL's message is its whole error queue line
 * ("800C...:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/
 * ...ssl3_record.c:350:" and a newline); its reason ("wrong version number") says the same
 * without the library's internals.
 */
function messageOf(error: Error & { reason?: unknown }): string {
  return typeof error.reason === "string" && error.reason !== ""
    ? error.reason
    : error.message.trim();
}

/**
 * tls.checkServerIdentity, except for an IPv6 address: Node 22 runs the host through
 * domainToASCII first, which turns `::1` into "" and so refuses every IPv6 address whatever the
 * certificate's IP entries say (Node 20 matched them). An address is covered by an `IP Address`
 * entry naming the same address in any spelling, as RFC 6125 and browsers have it.
 */
function serverIdentityError(host: string, peer: tls.PeerCertificate): Error | undefined {
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

/** Probes one endpoint; never throws for anything the network or the server does. */
export function probeTls(endpoint: Endpoint, options: ProbeOptions): Promise<ProbeResult> {
  const rules = options.connectTo ?? [];
  const target = resolveConnectTo(rules, endpoint.host, endpoint.port);
  const connectedTo = hostPort(target.host, target.port);
  // A rule naming the host is the operator's own word; otherwise the service's name decides
  // where the connection goes, and it may only go to a public address.
  const vetted =
    options.publicOnly === true &&
    matchingRule(rules, endpoint.host, endpoint.port)?.toHost === undefined;
  return new Promise((resolve) => {
    let settled = false;
    let socket: tls.TLSSocket | undefined;
    let stopWaiting = () => {};
    const finish = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stopWaiting();
      if (result.reached && socket) {
        // A clean close (close_notify, then FIN) flushes our last handshake message, so the
        // server sees a completed handshake, not a reset; a server that never closes its side
        // is cut off shortly after.
        const s = socket;
        s.end();
        setTimeout(() => s.destroy(), CLOSE_GRACE_MS).unref();
      } else {
        socket?.destroy();
      }
      resolve(result);
    };
    const failed = (step: ProbeStep, code: string | undefined, message: string) =>
      finish({ reached: false, connectedTo, step, code, message });
    const onAbort = () => failed("TIMEOUT", "ABORTED", "the probe was cancelled");
    const timer = setTimeout(
      () => failed("TIMEOUT", "ETIMEDOUT", `no TLS handshake within ${options.timeoutMs} ms`),
      options.timeoutMs,
    );
    if (options.signal?.aborted) {
      onAbort();
      return;
    }
    // An address needs no lookup, so the lookup below would never see it.
    if (vetted && isIP(target.host) !== 0 && !isPublicAddress(target.host)) {
      failed("REFUSED", NOT_PUBLIC_CODE, `${target.host} is not a public address`);
      return;
    }
    stopWaiting = options.signal ? whenAborted(options.signal, onAbort) : () => {};
    let connected = false;
    const connectOptions: tls.ConnectionOptions = {
      host: target.host,
      port: target.port,
      // SNI carries names only (RFC 6066 3): an address is checked against the certificate but not sent.
      ...(isIP(endpoint.host) === 0 ? { servername: endpoint.host } : {}),
      // The chain and the name are judged below, separately, so each gets its own status;
      // the connection is closed right after the handshake whatever they say.
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
      ...(vetted ? { lookup: publicOnlyLookup } : {}),
    };
    try {
      // Inside the try: a trust list Node refuses (unreadable PEM) throws here.
      socket = tls.connect({ ...connectOptions, secureContext: secureContextFor(options.ca) });
    } catch (error) {
      // Options Node refuses (an unreadable `ca`): a failure of this probe, not a crash.
      const e = ensureError(error) as NodeJS.ErrnoException;
      failed("TLS", e.code, e.message);
      return;
    }
    socket.once("connect", () => {
      connected = true;
    });
    socket.once("secureConnect", () => {
      const s = socket as tls.TLSSocket;
      const peer = s.getPeerCertificate(true);
      if (peer.raw === undefined) {
        failed("TLS", undefined, "the server sent no certificate");
        return;
      }
      try {
        const nameError = serverIdentityError(endpoint.host, peer);
        const chainProblem = chainVerdict(s, peer, options.ca, options.extraCaCertsPath);
        finish({
          reached: true,
          connectedTo,
          certificate: describeCertificate(peer.raw),
          chainProblem,
          nameProblem: nameError?.message,
          leafIssuerFound: leafIssuerFound(peer, chainProblem?.code),
        });
      } catch (error) {
        // A certificate Node's X.509 parser refuses is one no browser would accept either.
        failed(
          "TLS",
          "BAD_CERTIFICATE",
          `the certificate cannot be read: ${ensureError(error).message}`,
        );
      }
    });
    // on, not once: a reset may still come while the clean close is under way.
    socket.on("error", (error: NodeJS.ErrnoException & { reason?: unknown }) => {
      const code = error.code;
      const step: ProbeStep =
        code === NOT_PUBLIC_CODE
          ? "REFUSED"
          : code && DNS_CODES.has(code)
            ? "DNS"
            : !connected && code && TCP_CODES.has(code)
              ? "TCP"
              : "TLS";
      failed(step, code, messageOf(error));
    });
    socket.once("close", () =>
      failed("TLS", undefined, "the connection closed before the handshake completed"),
    );
  });
}
