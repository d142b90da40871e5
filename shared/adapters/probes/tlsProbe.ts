import { X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import tls from "node:tls";
import type {
  ProbeOptions,
  ProbeResult,
  ProbeStep,
  ServedCertificate,
} from "../../core/ports/probes.js";
import {
  type Destination,
  matchingRule,
  resolveConnectTo,
} from "../../core/verification/connectTo.js";
import type { Endpoint } from "../../core/verification/endpoint.js";
import { isPublicAddress, NOT_PUBLIC_CODE } from "../../core/verification/publicAddress.js";
import { whenAborted } from "../../lib/abort.js";
import { ensureError } from "../../lib/errors.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { derFacts, keyOf, leafIssuerFound, selfIssued } from "./certificateFacts.js";
import { chainVerdict, serverIdentityError } from "./handshakeVerdict.js";
import { publicOnlyLookup } from "./publicOnlyLookup.js";
import { secureContextFor } from "./secureContexts.js";

/**
 * One TLS probe: connect with SNI, read the served certificate, close. Nothing is ever written
 * on the connection (no HTTP request, no byte of application data): the handshake alone says
 * what a browser would be shown, and a probe must not count as a visit or trigger anything.
 */

/** How long a clean close may take before the socket is destroyed, in ms. */
const CLOSE_GRACE_MS = 1_000;

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
    sha1Thumbprint: x509.fingerprint.replaceAll(":", "").toUpperCase(),
    altNames: (x509.subjectAltName ?? "").split(", ").filter((n) => n !== ""),
    key: keyOf(x509),
    ...derFacts(der),
    selfIssued: selfIssued(x509),
  };
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
    new TlsProbe(endpoint, options, { target, connectedTo, vetted }, resolve).start();
  });
}

/** Where a probe connects (connect-to applied), as reported, and whether only public will do. */
interface Route {
  readonly target: Destination;
  readonly connectedTo: string;
  readonly vetted: boolean;
}

/**
 * One probe under way: its socket, its timer, and the one result it resolves with, from
 * whatever comes first (the handshake, an error, the close, the timeout, a cancellation).
 */
class TlsProbe {
  readonly #endpoint: Endpoint;
  readonly #options: ProbeOptions;
  readonly #route: Route;
  readonly #resolve: (result: ProbeResult) => void;
  #settled = false;
  #socket: tls.TLSSocket | undefined;
  #stopWaiting = () => {};
  #timer: NodeJS.Timeout | undefined;
  /** Whether TCP connected: a reset after that is the TLS step's. */
  #connected = false;

  constructor(
    endpoint: Endpoint,
    options: ProbeOptions,
    route: Route,
    resolve: (result: ProbeResult) => void,
  ) {
    this.#endpoint = endpoint;
    this.#options = options;
    this.#route = route;
    this.#resolve = resolve;
  }

  start(): void {
    const { signal } = this.#options;
    const onAbort = () => this.#failed("TIMEOUT", "ABORTED", "the probe was cancelled");
    this.#timer = setTimeout(
      () =>
        this.#failed(
          "TIMEOUT",
          "ETIMEDOUT",
          `no TLS handshake within ${this.#options.timeoutMs} ms`,
        ),
      this.#options.timeoutMs,
    );
    if (signal?.aborted) {
      onAbort();
      return;
    }
    const { target, vetted } = this.#route;
    // An address needs no lookup, so the lookup below would never see it.
    if (vetted && isIP(target.host) !== 0 && !isPublicAddress(target.host)) {
      this.#failed("REFUSED", NOT_PUBLIC_CODE, `${target.host} is not a public address`);
      return;
    }
    this.#stopWaiting = signal ? whenAborted(signal, onAbort) : () => {};
    const socket = this.#connect();
    if (socket) this.#listen(socket);
  }

  /** The connection; undefined when Node refuses its options (the probe has failed then). */
  #connect(): tls.TLSSocket | undefined {
    const { target, vetted } = this.#route;
    const connectOptions: tls.ConnectionOptions = {
      host: target.host,
      port: target.port,
      // SNI carries names only (RFC 6066 3): an address is checked against the certificate but not sent.
      ...(isIP(this.#endpoint.host) === 0 ? { servername: this.#endpoint.host } : {}),
      // The chain and the name are judged below, separately, so each gets its own status;
      // the connection is closed right after the handshake whatever they say.
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
      ...(vetted ? { lookup: publicOnlyLookup } : {}),
    };
    try {
      // Inside the try: a trust list Node refuses (unreadable PEM) throws here.
      this.#socket = tls.connect({
        ...connectOptions,
        secureContext: secureContextFor(this.#options.ca),
      });
    } catch (error) {
      // Options Node refuses (an unreadable `ca`): a failure of this probe, not a crash.
      const e = ensureError(error) as NodeJS.ErrnoException;
      this.#failed("TLS", e.code, e.message);
      return undefined;
    }
    return this.#socket;
  }

  #listen(socket: tls.TLSSocket): void {
    socket.once("connect", () => {
      this.#connected = true;
    });
    socket.once("secureConnect", () => this.#secureConnected(socket));
    // on, not once: a reset may still come while the clean close is under way.
    socket.on("error", (error: NodeJS.ErrnoException & { reason?: unknown }) => {
      const code = error.code;
      this.#failed(stepOf(code, this.#connected), code, messageOf(error));
    });
    socket.once("close", () =>
      this.#failed("TLS", undefined, "the connection closed before the handshake completed"),
    );
  }

  /** The handshake is done: the served certificate, its chain's verdict and its name's. */
  #secureConnected(s: tls.TLSSocket): void {
    const peer = s.getPeerCertificate(true);
    if (peer.raw === undefined) {
      this.#failed("TLS", undefined, "the server sent no certificate");
      return;
    }
    try {
      const { ca, extraCaCertsPath } = this.#options;
      const nameError = serverIdentityError(this.#endpoint.host, peer);
      const chainProblem = chainVerdict(s, peer, ca, extraCaCertsPath);
      this.#finish({
        reached: true,
        connectedTo: this.#route.connectedTo,
        certificate: describeCertificate(peer.raw),
        chainProblem,
        nameProblem: nameError?.message,
        leafIssuerFound: leafIssuerFound(peer, chainProblem?.code),
      });
    } catch (error) {
      // A certificate Node's X.509 parser refuses is one no browser would accept either.
      this.#failed(
        "TLS",
        "BAD_CERTIFICATE",
        `the certificate cannot be read: ${ensureError(error).message}`,
      );
    }
  }

  #failed(step: ProbeStep, code: string | undefined, message: string): void {
    this.#finish({ reached: false, connectedTo: this.#route.connectedTo, step, code, message });
  }

  #finish(result: ProbeResult): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#stopWaiting();
    const socket = this.#socket;
    if (result.reached && socket) {
      // A clean close (close_notify, then FIN) flushes our last handshake message, so the
      // server sees a completed handshake, not a reset; a server that never closes its side
      // is cut off shortly after.
      socket.end();
      setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    } else {
      socket?.destroy();
    }
    this.#resolve(result);
  }
}

/** The step an error of the connection belongs to; `connected`: TCP had connected. */
function stepOf(code: string | undefined, connected: boolean): ProbeStep {
  return code === NOT_PUBLIC_CODE
    ? "REFUSED"
    : code && DNS_CODES.has(code)
      ? "DNS"
      : !connected && code && TCP_CODES.has(code)
        ? "TCP"
        : "TLS";
}
