import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { APP_SERVICE_TARGET, type SimCertificate } from "../certificate.js";

/**
 * The App Service side of an HTTP-01 challenge: plain HTTP on loopback, answering
 * `GET /.well-known/acme-challenge/<token>` for each App Service domain of the simulator (by the
 * Host header), as the app behind the domain would. What matters to preflight is that the app
 * answers at all: by default it answers 404 (no file at that path), which is an answer.
 */

/** How the app behind one domain treats the challenge path. */
export type ChallengeBehaviourName =
  /** Answers with a status (404 unless an answer says otherwise). */
  | "answer"
  /** Closes the connection at once, with no answer. */
  | "refuse"
  /** Never answers; the connection stays open until the client gives up. */
  | "hang"
  /** Speaks TLS on the plain port: a TLS alert record, then the connection is closed. */
  | "tls-only"
  /** 301 to the same path on {@link CHALLENGE_OTHER_HOST}: the challenge would leave the app. */
  | "redirect-elsewhere"
  /** 301 to the same path over https on the same host: the app itself answered. */
  | "redirect-https";

/** An answer with a status of one's choosing, and a body of `bodyBytes` bytes (default small). */
export interface ChallengeAnswerSpec {
  readonly status: number;
  readonly bodyBytes?: number;
}

export type ChallengeBehaviour = ChallengeBehaviourName | ChallengeAnswerSpec;

export const CHALLENGE_BEHAVIOURS: readonly ChallengeBehaviourName[] = [
  "answer",
  "refuse",
  "hang",
  "tls-only",
  "redirect-elsewhere",
  "redirect-https",
];

/** Where `redirect-elsewhere` sends the client (.example is reserved, RFC 2606). */
export const CHALLENGE_OTHER_HOST = "other.example";

/** A fatal TLS alert (protocol_version), as a TLS-only server sends to a client it cannot talk to. */
export const TLS_ALERT = Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46]);

/** One request the listener received, in arrival order. */
export interface ChallengeRequest {
  readonly method: string;
  /** As sent, query string included. */
  readonly path: string;
  /** The Host header as sent (port included when the client sent one). */
  readonly host: string;
  /** What the app did; undefined when no App Service certificate names the host (no answer). */
  readonly behaviour: ChallengeBehaviourName | undefined;
}

/** The simulator's challenge endpoint (Hosting.challenge). */
export interface HostingChallenge {
  /** Address to connect to: the simulator's host (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /**
   * A CERTSCHED_VERIFY_CONNECT_TO entry sending every name's port 80 here
   * (`:80:127.0.0.1:PORT`). Put it before Hosting.connectTo, which catches every port.
   */
  readonly connectTo: string;
  /** One `{domain}:80:127.0.0.1:PORT` entry per App Service domain now, comma-separated; "" for none. */
  domainConnectTo(): string;
  /** Sets how the app behind `domain` (case and a trailing dot ignored) answers, from the next request on. */
  behave(domain: string, behaviour: ChallengeBehaviour): void;
  /** Back to the default (`answer` 404), for one domain or every domain. */
  reset(domain?: string): void;
  readonly requests: readonly ChallengeRequest[];
}

export interface ChallengeEndpoint extends HostingChallenge {
  close(): Promise<void>;
}

const PREFIX = "/.well-known/acme-challenge/";

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, "");

/** The Host header without its port (an IPv6 literal keeps its brackets). */
function hostName(header: string): string {
  return normalize(header.replace(/:\d*$/, ""));
}

function checkBehaviour(behaviour: ChallengeBehaviour): ChallengeBehaviour {
  if (typeof behaviour === "string") {
    if (!CHALLENGE_BEHAVIOURS.includes(behaviour)) {
      throw new RangeError(
        `Challenge behaviour must be one of ${CHALLENGE_BEHAVIOURS.join(", ")} or { status }, got ${String(behaviour)}`,
      );
    }
    return behaviour;
  }
  const { status, bodyBytes = 0 } = behaviour;
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new RangeError(
      `Challenge answer status must be a whole number in 100..599, got ${status}`,
    );
  }
  if (!Number.isInteger(bodyBytes) || bodyBytes < 0) {
    throw new RangeError(
      `Challenge answer bodyBytes must be a whole number >= 0, got ${bodyBytes}`,
    );
  }
  return behaviour;
}

/** Writes `bytes` bytes of filler, respecting backpressure, and stops when the client leaves. */
function sendBody(res: ServerResponse, bytes: number): void {
  const chunk = Buffer.alloc(Math.min(bytes, 64 * 1024), "x");
  let left = bytes;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      if (!res.write(piece)) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/** Starts the challenge listener on `host`, a free port. */
export async function startChallengeServer(
  /** The simulator's certificates now (HostingSource.certificates). */
  source: { certificates(): readonly SimCertificate[] },
  host: string,
): Promise<ChallengeEndpoint> {
  const behaviours = new Map<string, ChallengeBehaviour>();
  const requests: ChallengeRequest[] = [];

  const servedDomains = (): Set<string> =>
    new Set(
      source
        .certificates()
        .filter((c) => c.target === APP_SERVICE_TARGET && c.rootDomain !== null)
        .map((c) => normalize(c.rootDomain ?? "")),
    );

  const answer = (req: IncomingMessage, res: ServerResponse, spec: ChallengeAnswerSpec) => {
    const path = req.url ?? "/";
    const body =
      spec.bodyBytes === undefined
        ? Buffer.from(spec.status === 404 ? "Not Found\n" : `answered ${path}\n`)
        : undefined;
    res.writeHead(spec.status, {
      "content-type": "text/plain",
      "content-length": String(body?.length ?? spec.bodyBytes ?? 0),
      connection: "close",
    });
    if (body !== undefined) res.end(body);
    else sendBody(res, spec.bodyBytes ?? 0);
  };

  const redirect = (res: ServerResponse, location: string) => {
    res.writeHead(301, { location, "content-length": "0", connection: "close" });
    res.end();
  };

  const server = createServer((req, res) => {
    const sentHost = req.headers.host ?? "";
    const domain = hostName(sentHost);
    const known = servedDomains().has(domain);
    const behaviour = known ? (behaviours.get(domain) ?? "answer") : undefined;
    const name: ChallengeBehaviourName | undefined =
      typeof behaviour === "object" ? "answer" : behaviour;
    requests.push({
      method: req.method ?? "",
      path: req.url ?? "",
      host: sentHost,
      behaviour: name,
    });
    const path = (req.url ?? "/").startsWith("/") ? (req.url ?? "/") : PREFIX;
    switch (behaviour) {
      // No app serves the name: no answer, as the TLS side fails the handshake for it.
      case undefined:
      case "refuse":
        req.socket.destroy();
        return;
      case "hang":
        return;
      case "tls-only":
        req.socket.end(TLS_ALERT);
        return;
      case "redirect-elsewhere":
        redirect(res, `http://${CHALLENGE_OTHER_HOST}${path}`);
        return;
      case "redirect-https":
        redirect(res, `https://${sentHost.replace(/:\d*$/, "")}${path}`);
        return;
      case "answer":
        answer(req, res, { status: 404 });
        return;
      default:
        answer(req, res, behaviour);
    }
  });
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // A client that leaves mid-answer (a bounded body read) is no error of the simulator's.
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port: 0 }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const connectHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;

  return {
    host,
    port,
    connectTo: `:80:${connectHost}:${port}`,
    domainConnectTo: () =>
      [...servedDomains()]
        .filter((d) => !d.startsWith("*."))
        .sort()
        .map((d) => `${d}:80:${connectHost}:${port}`)
        .join(","),
    behave: (domain, behaviour) => behaviours.set(normalize(domain), checkBehaviour(behaviour)),
    reset: (domain) => {
      if (domain === undefined) behaviours.clear();
      else behaviours.delete(normalize(domain));
    },
    requests,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging requests and keep-alive sockets would hold close() open.
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
