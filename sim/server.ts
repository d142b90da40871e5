import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SimCertificate } from "./certificate.js";
import { Delays } from "./delays.js";
import { echoTokens } from "./echoTokens.js";
import { type Fault, FaultPlan, faultResponds } from "./faults.js";
import { type HostingEndpoint, startHosting } from "./hosting/hostingEndpoint.js";
import { IdentityProvider } from "./identity.js";
import { resolveOptions, type SimulatorOptions } from "./options.js";
import { handleList, handlePublicRenew, handleTest } from "./publicHandlers.js";
import { RateLimit } from "./rateLimit.js";
import { CutRequest, readBody, recordHeaders } from "./readBody.js";
import { type SimResponse, text, withDefaultContentType, writeResponse } from "./response.js";
import { matchRoute, type RouteMatch } from "./routes.js";
import type { ServiceCall, ServiceContext } from "./serviceContext.js";
import type { RecordedRequest, Simulator } from "./simulator.js";
import { CertificateStore } from "./state.js";
import { handleCreate, handleGet, handleRenew } from "./v3Handlers.js";

const SERVICE_HANDLERS = {
  create: handleCreate,
  renew: handleRenew,
  list: handleList,
  publicRenew: handlePublicRenew,
  test: handleTest,
  get: handleGet,
} as const;

/** Starts the simulator on a real HTTP server (default 127.0.0.1, a free port). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const settings = resolveOptions(options);
  const now = options.now ?? (() => new Date());
  const store = new CertificateStore(
    subscriptionNumber(settings.subscriptionId),
    settings.completionDelayMs,
  );
  for (const seed of options.certificates ?? []) store.add(seed);
  const identity = new IdentityProvider(settings);
  const faults = new FaultPlan();
  const delays = new Delays();
  const limit = options.rateLimit ? new RateLimit(options.rateLimit) : undefined;
  const requests: RecordedRequest[] = [];
  const cutRequests: RecordedRequest[] = [];
  let closed = false;

  function dispatch(route: RouteMatch, req: IncomingMessage, body: string): SimResponse {
    const at = now();
    if (route.operation === "token") {
      return identity.token(route.pathValue, req.headers["content-type"], body, at);
    }
    store.settle(at);
    const ctx: ServiceContext = { options: settings, store, identity, now: at };
    const call: ServiceCall = { pathValue: route.pathValue, headers: req.headers, body };
    if (route.name !== undefined) call.name = route.name;
    return SERVICE_HANDLERS[route.operation](ctx, call);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const route = matchRoute(path);
    const recorded = (body: string): RecordedRequest => ({
      operation: route?.operation ?? "unknown",
      method: req.method ?? "",
      path,
      query: queryAt < 0 ? "" : url.slice(queryAt + 1),
      headers: recordHeaders(req.headers),
      body,
      at: now(),
    });
    let body: string | undefined;
    try {
      body = await readBody(req);
    } catch (error) {
      // The client went away mid-body: nothing to act on, nobody to answer.
      if (!(error instanceof CutRequest)) throw error;
      cutRequests.push(recorded(error.partial));
      res.destroy();
      return;
    }
    requests.push(recorded(body ?? ""));
    if (body === undefined) return writeResponse(res, text(413, "Request body too large"));
    if (!route) return writeResponse(res, text(404, "Not found"));
    // Every operation is a POST but Get Certificate, a GET (vendor's 8.0 client).
    if (req.method !== route.method) {
      const refused = text(405, "Method not allowed");
      const allow = route.method;
      return writeResponse(res, { ...refused, headers: { ...refused.headers, allow } });
    }
    const admitted = limit?.admit(route.operation);
    if (admitted === false) {
      const busy = text(429, "Too many requests in flight; retry later");
      const retryAfter = limit?.retryAfter ?? "1";
      return writeResponse(res, {
        ...busy,
        headers: { ...busy.headers, "retry-after": retryAfter },
      });
    }
    try {
      await served(route, req, res, body);
    } finally {
      if (admitted) limit?.release();
    }
  }

  async function served(
    route: RouteMatch,
    req: IncomingMessage,
    res: ServerResponse,
    body: string,
  ): Promise<void> {
    const fault = faults.next(route.operation);
    if (fault?.delayMs) await delays.wait(fault.delayMs);
    if (closed) return;
    if (fault?.reset) {
      req.socket.destroy();
      return;
    }
    let response =
      fault && faultResponds(fault) ? faultResponse(fault) : dispatch(route, req, body);
    if (fault?.echoTokens && !faultResponds(fault)) {
      response = echoTokens(response, tokensOf(body, identity), fault.echoTokens);
    }
    if (route.operation !== "token" && settings.latencyMs > 0)
      await delays.wait(settings.latencyMs);
    if (closed) return;
    if (fault?.dripMs) return drip(res, response, fault.dripMs);
    writeResponse(res, response);
  }

  /** Headers now, then the body a byte at a time; stops when the client or close() ends it. */
  async function drip(res: ServerResponse, response: SimResponse, everyMs: number): Promise<void> {
    const bytes = Buffer.from(response.body);
    res.writeHead(response.status, { ...response.headers, "content-length": bytes.length });
    res.flushHeaders();
    for (let i = 0; i < bytes.length; i++) {
      await delays.wait(everyMs);
      if (closed || res.destroyed) return;
      res.write(bytes.subarray(i, i + 1));
    }
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the simulator must be loud in the response, not a hang.
      if (res.headersSent) res.destroy();
      else writeResponse(res, text(500, `Simulator error: ${String(error)}`));
    });
  });
  // Idle keep-alive connections stay open far longer than any client keeps them (certsched
  // closes them after 2 s), so the client always closes first: a server closing a socket just as
  // a request is sent on it would fail that request with ECONNRESET, at random.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // A deep backlog so bursts of a thousand concurrent connections are not throttled by SYN retries.
    server.listen({ host: settings.host, port: settings.port, backlog: 4096 }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  const baseUrl = `http://${host}:${port}`;
  let closing: Promise<void> | undefined;
  let hosting: HostingEndpoint | undefined;
  if (options.hosting) {
    const source = {
      certificates: () => {
        store.settle(now());
        return store.all();
      },
      onRenewed: store.onRenewed.bind(store),
      now,
      vaultResource: settings.vaultResource,
      vaultToken: (token: string) => identity.verify(token, "vault", now()),
    };
    try {
      hosting = await startHosting(source, settings.host, options.hosting);
    } catch (error) {
      server.close();
      throw error;
    }
  }

  return {
    baseUrl,
    publicBaseUrl: `${baseUrl}/public`,
    tokenUrl: `${baseUrl}/identity`,
    hosting,
    get options() {
      return { ...settings, port, clientSecret: identity.clientSecret };
    },
    requests,
    requestsFor: (op) => requests.filter((r) => r.operation === op),
    cutRequests,
    rateLimitStats: () => limit?.stats(),
    issuedTokens: () => identity.issuedTokens(),
    inject: (op, fault) => faults.inject(op, fault),
    clearFaults: () => faults.clear(),
    setRandomFaults: (opts) => faults.setRandom(opts),
    certificates: () => {
      store.settle(now());
      return store.all().map(copyCertificate);
    },
    addCertificate: (seed) => copyCertificate(store.add(seed)),
    onCertificateRenewed: (listener) => store.onRenewed(listener),
    renewCallsFor: (name) => store.byName(name)?.renewals ?? 0,
    expireClientSecret: () => identity.expireClientSecret(),
    setClientSecret: (secret) => identity.setClientSecret(secret),
    reset: () => {
      requests.length = 0;
      cutRequests.length = 0;
      faults.clear();
    },
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        closed = true;
        const stopped = new Promise<void>((done, failed) =>
          server.close((error) => (error ? failed(error) : done())),
        );
        server.closeAllConnections();
        delays.cancelAll();
        Promise.all([stopped, hosting?.close()]).then(() => resolve(), reject);
      });
      return closing;
    },
  };
}

/** The cloud tokens a request carried in its body; none there: the newest issued of each. */
function tokensOf(
  body: string,
  identity: IdentityProvider,
): { accessToken?: string; accessTokenKeyVault?: string } {
  let sent: { accessToken?: unknown; accessTokenKeyVault?: unknown } = {};
  try {
    const parsed: unknown = body === "" ? {} : JSON.parse(body);
    if (typeof parsed === "object" && parsed !== null) sent = parsed;
  } catch {
    // Not JSON: it carried no tokens.
  }
  const newest = identity.newestTokens();
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const accessToken = text(sent.accessToken) ?? newest.management;
  const accessTokenKeyVault = text(sent.accessTokenKeyVault) ?? newest.vault;
  return {
    ...(accessToken === undefined ? {} : { accessToken }),
    ...(accessTokenKeyVault === undefined ? {} : { accessTokenKeyVault }),
  };
}

function faultResponse(fault: Fault): SimResponse {
  return {
    status: fault.status ?? 500,
    headers: withDefaultContentType(fault.headers ?? {}),
    body: fault.body ?? "",
  };
}

/** The record's numeric subscriptionId (spec 2.3); 1001 when the path value is not a number. */
function subscriptionNumber(subscriptionId: string): number {
  const n = Number(subscriptionId);
  return Number.isSafeInteger(n) && subscriptionId.trim() !== "" ? n : 1001;
}

function copyCertificate(cert: SimCertificate): SimCertificate {
  const copy = {
    ...cert,
    issueDate: new Date(cert.issueDate),
    expiryDate: new Date(cert.expiryDate),
  };
  if (cert.pendingUntil) copy.pendingUntil = new Date(cert.pendingUntil);
  return copy;
}
