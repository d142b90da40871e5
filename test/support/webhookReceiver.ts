import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One POST the receiver got. */
export interface Received {
  readonly method: string;
  /** Path and query as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The parsed body; undefined when it is not JSON. */
  readonly json: unknown;
}

/** How the receiver answers: a status and body, or no answer at all. */
export type Behaviour = { status: number; body?: string; contentType?: string } | "hang";

/** A webhook receiver on 127.0.0.1 (a random port), recording what arrives. */
export interface Receiver {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  readonly baseUrl: string;
  readonly received: Received[];
  /** How the next requests are answered, in order; the last one repeats (default 202, as a Teams workflow). */
  answer(...behaviours: [Behaviour, ...Behaviour[]]): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let queue: Behaviour[] = [{ status: 202 }];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
        json,
      });
      const behaviour = (queue.length > 1 ? queue.shift() : queue[0]) ?? { status: 202 };
      if (behaviour === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(behaviour.status, { "content-type": behaviour.contentType ?? "text/plain" });
      res.end(behaviour.body ?? "");
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    answer(...behaviours) {
      queue = behaviours;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
