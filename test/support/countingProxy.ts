import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A pass-through HTTP proxy in front of Azurite's table service that counts the requests it
 * forwards (a real socket each way): how many requests a store sent, not how many it meant to.
 */
export interface CountingProxy {
  /** The connection string with its TableEndpoint led through the proxy. */
  readonly connectionString: string;
  /** Requests forwarded so far, as "METHOD path" (path without the query). */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function countingProxy(
  connectionString: string,
  /**
   * Awaited before each request is forwarded (another writer's turn, say); "drop" closes the
   * connection instead, with no answer.
   */
  before?: (request: string) => Promise<undefined | "drop">,
): Promise<CountingProxy> {
  const endpoint = /TableEndpoint=(http:\/\/[^;]+)/.exec(connectionString)?.[1];
  if (!endpoint) throw new Error("no TableEndpoint in the connection string");
  const target = new URL(endpoint);
  const requests: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const line = `${req.method} ${(req.url ?? "").split("?")[0]}`;
    requests.push(line);
    req.pause();
    if ((await before?.(line)) === "drop") {
      req.socket.destroy();
      return;
    }
    const out = forward(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const proxied = `http://127.0.0.1:${port}${target.pathname}`;
  return {
    connectionString: connectionString.replace(
      `TableEndpoint=${endpoint}`,
      `TableEndpoint=${proxied}`,
    ),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
