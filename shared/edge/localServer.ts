import { randomUUID, timingSafeEqual } from "node:crypto";
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
 *
 * It also takes Event Grid deliveries as the host does for Event Grid triggers: POST
 * `/runtime/webhooks/eventgrid?functionName=<name>` with the system key (here the function key),
 * a subscription's validation answered with its code, and each event of a notification handed to
 * the function once, one after the other; 200 when every invocation resolved, 500 when one
 * threw (Event Grid delivers again). CloudEvents' validation (OPTIONS with
 * WebHook-Request-Origin) is answered with WebHook-Allowed-Origin.
 */

export type GetHandler = (
  request: functions.HttpRequest,
  context: functions.InvocationContext,
) => Promise<HttpResponseInit>;

/** An Event Grid trigger's handler: one event per invocation, as the host calls it. */
export type EventGridHandler = (
  event: unknown,
  context: functions.InvocationContext,
) => Promise<void>;

/** The Functions host's Event Grid webhook path. */
export const EVENT_GRID_WEBHOOK = "/runtime/webhooks/eventgrid";

/** The largest delivery taken (bytes); a bigger one is 413. */
export const MAX_EVENT_GRID_BODY = 1024 * 1024;

export interface LocalServerOptions {
  /** Path (e.g. "/api/dashboard") to handler. Anything else is 404. */
  readonly routes: Readonly<Record<string, GetHandler>>;
  /** Event Grid functions by name (`?functionName=`); default none. */
  readonly eventGrid?: Readonly<Record<string, EventGridHandler>>;
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

/** Whether the request carries the key (`?code=` or `x-functions-key`); true when none is set. */
function keyed(options: LocalServerOptions, url: URL, req: IncomingMessage): boolean {
  const expected = options.functionKey;
  if (expected === undefined) return true;
  const header = req.headers["x-functions-key"];
  return (
    sameKey(url.searchParams.get("code"), expected) ||
    sameKey(typeof header === "string" ? header : null, expected)
  );
}

/**
 * The body, at most `limit` bytes; undefined when it is bigger (the rest is read and dropped, so
 * the sender sees the answer rather than a reset).
 */
function boundedBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on("end", () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`${text}\n`);
}

/** The validation code of a SubscriptionValidation delivery; undefined when it has none. */
function validationCode(parsed: unknown): string | undefined {
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  const data = (first as { data?: { validationCode?: unknown } } | null)?.data;
  return typeof data?.validationCode === "string" ? data.validationCode : undefined;
}

/** Hands each event to the function, one invocation each; false when one threw. */
async function invokeEach(
  options: LocalServerOptions,
  name: string,
  handler: EventGridHandler,
  events: readonly unknown[],
): Promise<boolean> {
  let allResolved = true;
  for (const event of events) {
    const context = new InvocationContext({
      functionName: name,
      invocationId: randomUUID(),
      logHandler: (level, ...args) => options.log?.(`${level}: ${args.map(String).join(" ")}`),
    });
    try {
      await handler(event, context);
    } catch (error) {
      allResolved = false;
      options.log?.(`error: ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return allResolved;
}

/** POST /runtime/webhooks/eventgrid?functionName=<name>, as the host answers it. */
async function serveEventGrid(
  options: LocalServerOptions,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const origin = req.headers["webhook-request-origin"];
  const validation = req.method === "OPTIONS" && typeof origin === "string";
  if (req.method !== "POST" && !validation) {
    return void res.writeHead(405, { allow: "POST, OPTIONS" }).end();
  }
  if (!keyed(options, url, req)) return void res.writeHead(401).end();
  // CloudEvents' abuse protection: the endpoint allows the origin that asks.
  if (validation) return void res.writeHead(200, { "webhook-allowed-origin": origin }).end();
  const name = url.searchParams.get("functionName") ?? "";
  const registered = options.eventGrid ?? {};
  const handler = Object.hasOwn(registered, name) ? registered[name] : undefined;
  if (handler === undefined) return plain(res, 404, "no such Event Grid function");
  const body = await boundedBody(req, MAX_EVENT_GRID_BODY);
  if (body === undefined) return plain(res, 413, "delivery too large");
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return plain(res, 400, "malformed JSON");
  }
  const kind = req.headers["aeg-event-type"];
  if (kind === "SubscriptionValidation") {
    const code = validationCode(parsed);
    if (code === undefined) return plain(res, 400, "no validation code");
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    return void res.end(JSON.stringify({ validationResponse: code }));
  }
  if (kind !== "Notification") return plain(res, 400, "aeg-event-type must be Notification");
  const events = Array.isArray(parsed) ? parsed : [parsed];
  const ok = await invokeEach(options, name, handler, events);
  res.writeHead(ok ? 200 : 500).end();
}

async function serve(
  options: LocalServerOptions,
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", origin);
  if (url.pathname === EVENT_GRID_WEBHOOK) return serveEventGrid(options, url, req, res);
  const handler = Object.hasOwn(options.routes, url.pathname)
    ? options.routes[url.pathname]
    : undefined;
  if (!handler) {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET" }).end();
    return;
  }
  const headers = headersOf(req);
  if (!keyed(options, url, req)) {
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
