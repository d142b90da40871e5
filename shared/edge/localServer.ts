import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import functions, { type HttpResponseInit } from "@azure/functions";

// A CommonJS package: plain Node (the built CLI, unbundled) gives ESM no named value exports.
const { HttpRequest, InvocationContext } = functions;

/**
 * A loopback HTTP server that plays the Functions host for a few GET routes: it builds a real
 * HttpRequest from each request, calls the handler, and writes its HttpResponseInit back. Like
 * the host for `authLevel: function`, it answers 401 (empty body) unless the request carries the
 * function key as `?code=` or `x-functions-key`. For `certsched sandbox --dashboard` and the
 * browser test; not a production server (the host is).
 */

export type GetHandler = (
  request: functions.HttpRequest,
  context: functions.InvocationContext,
) => Promise<HttpResponseInit>;

export interface LocalServerOptions {
  /** Path (e.g. "/api/dashboard") to handler. Anything else is 404. */
  readonly routes: Readonly<Record<string, GetHandler>>;
  /** The function key every request must carry; undefined: none needed. */
  readonly functionKey?: string | undefined;
  /** 0 (default): a free port. */
  readonly port?: number;
  /** Where handlers' log lines go (default: dropped). */
  readonly log?: (line: string) => void;
}

export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  close(): Promise<void>;
}

function sameKey(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function headersOf(message: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

async function bodyOf(init: HttpResponseInit): Promise<Buffer> {
  const body = init.body;
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body);
  // Anything else a handler may return (a stream, a Blob): let the platform's Response read it.
  return Buffer.from(
    await new Response(body as ConstructorParameters<typeof Response>[0]).arrayBuffer(),
  );
}

async function serve(
  options: LocalServerOptions,
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", origin);
  const handler = options.routes[url.pathname];
  if (!handler) {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET" }).end();
    return;
  }
  const headers = headersOf(req);
  if (
    options.functionKey !== undefined &&
    !sameKey(url.searchParams.get("code"), options.functionKey) &&
    !sameKey(headers["x-functions-key"] ?? null, options.functionKey)
  ) {
    res.writeHead(401).end();
    return;
  }
  const request = new HttpRequest({ method: "GET", url: url.href, headers, params: {} });
  const context = new InvocationContext({
    functionName: url.pathname,
    logHandler: (level, ...args) => options.log?.(`${level}: ${args.map(String).join(" ")}`),
  });
  const response = await handler(request, context);
  const body = await bodyOf(response);
  const out: Record<string, string> = {};
  new Headers(response.headers).forEach((value, name) => {
    out[name] = value;
  });
  res.writeHead(response.status ?? 200, out);
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Starts the server on 127.0.0.1 (never another interface). */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  let origin = "";
  const server = createServer((req, res) => {
    serve(options, origin, req, res).catch((error: unknown) => {
      options.log?.(`error: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
