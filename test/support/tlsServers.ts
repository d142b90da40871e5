import net from "node:net";
import tls from "node:tls";
import type { Issued } from "./certificates.js";

/** A TLS server on loopback that records what each client sent after the handshake. */
export interface RecordingServer {
  readonly port: number;
  /** Bytes of application data received, over every connection so far. */
  bytesAfterHandshake(): number;
  /** SNI names the clients sent (undefined when a client sent none). */
  readonly serverNames: (string | undefined)[];
  /** Handshakes completed. */
  handshakes(): number;
  /** Resolves once `n` handshakes completed and their connections closed (the client's close). */
  closedAfterHandshakes(n?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves `byName[sni]` to a client that sends that server name, else `fallback`. Each
 * connection is held open until the client closes it, so a client that wrote anything would be
 * recorded before the socket ends.
 */
export async function startTlsServer(
  fallback: Issued,
  byName: Readonly<Record<string, Issued>> = {},
): Promise<RecordingServer> {
  const contexts = new Map(
    Object.entries(byName).map(([name, issued]) => [name, tls.createSecureContext(issued)]),
  );
  let received = 0;
  let completed = 0;
  let closedAfter = 0;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const serverNames: (string | undefined)[] = [];
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({
    ...fallback,
    SNICallback: (name, done) => done(null, contexts.get(name)),
  });
  server.on("secureConnection", (socket: tls.TLSSocket) => {
    completed += 1;
    serverNames.push(typeof socket.servername === "string" ? socket.servername : undefined);
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closedAfter += 1;
      wake();
    });
  });
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    bytesAfterHandshake: () => received,
    serverNames,
    handshakes: () => completed,
    closedAfterHandshakes: async (n = 1) => {
      while (closedAfter < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Accepts TCP connections and never answers: the handshake can only time out. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on: bound, noted, released. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
