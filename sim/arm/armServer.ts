import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import {
  armError,
  authorizationFailed,
  bindingBody,
  defaultHostName,
  siteBody,
  zoneBody,
} from "./armBodies.js";
import { type ArmEstate, GRAPH_PATH, GraphState, MAX_BODY, parseJson } from "./armGraph.js";
import { type ArmFault, type ArmSite, ArmState, type ArmZone } from "./armState.js";

/**
 * A small Azure Resource Manager for tests and the sandbox (for preflight): the three
 * reads preflight makes, on ARM's own paths, over HTTPS (Azure's SDKs send bearer tokens over
 * TLS only), with ARM's JSON and error bodies, paging with `nextLink`, and faults per path.
 */

export interface ArmOptions {
  /** PEM key and certificate of the listener (the client must trust the certificate). */
  readonly key: string;
  readonly cert: string;
  /**
   * Whether a bearer token is acceptable (false: 401). Tie it to the simulator's identity
   * provider; default: any non-empty token.
   */
  readonly acceptToken?: ((token: string) => boolean) | undefined;
  /** Sites per page of the subscription's list (default 50; ARM's own pages are larger). */
  readonly pageSize?: number | undefined;
  /** Port on 127.0.0.1 (default 0: any free one). */
  readonly port?: number | undefined;
}

/** One request as it arrived, before auth, faults or routing. */
export interface ArmRequest {
  readonly method: string;
  /** The raw (still percent-encoded) path. */
  readonly path: string;
  /** The query string without its "?". */
  readonly query: string;
  /** An `Authorization: Bearer …` header came with it (the token itself is not kept). */
  readonly hadBearer: boolean;
}

export interface ArmSimulator {
  /** `https://127.0.0.1:PORT`: CERTSCHED_ARM_URL. */
  readonly url: string;
  addZone(zone: ArmZone): void;
  removeZone(subscriptionId: string, resourceGroup: string, name: string): boolean;
  addSite(site: ArmSite): void;
  removeSite(subscriptionId: string, resourceGroup: string, name: string): boolean;
  setPageSize(size: number): void;
  /** Every request under `pathPrefix` (a resource id or any prefix of one) gets `fault`. */
  setFault(pathPrefix: string, fault: ArmFault | undefined): void;
  clearFaults(): void;
  /** Resource Graph's rows (POST /providers/Microsoft.ResourceGraph/resources): seeds and faults. */
  readonly estate: ArmEstate;
  /** Every request, in arrival order (the live array). */
  readonly requests: ArmRequest[];
  /** Body bytes of the last answer sent whole (not `hang` or `endless`). */
  readonly lastAnswerBytes: number;
  /** Bytes written so far by `endless` answers (all of them), and how many are still writing. */
  readonly endless: { readonly bytes: number; readonly open: number };
  /** Stops listening and drops open connections (hanging ones included). */
  close(): Promise<void>;
}

const SEGMENT = "([^/]+)";
const ZONE = new RegExp(
  `^/subscriptions/${SEGMENT}/resourceGroups/${SEGMENT}/providers/Microsoft\\.Network/dnsZones/${SEGMENT}$`,
  "i",
);
const SITES = new RegExp(`^/subscriptions/${SEGMENT}/providers/Microsoft\\.Web/sites$`, "i");
const BINDINGS = new RegExp(
  `^/subscriptions/${SEGMENT}/resourceGroups/${SEGMENT}/providers/Microsoft\\.Web/sites/${SEGMENT}(?:/slots/${SEGMENT})?/hostNameBindings$`,
  "i",
);

const DEFAULT_PAGE_SIZE = 50;
interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

const notFound = (code: string, message: string): Answer => ({
  status: 404,
  body: armError(code, message),
});

function decode(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? "");
  } catch {
    return segment ?? "";
  }
}

/** A query parameter, its name compared without case (`$skipToken`, `$skiptoken`). */
function queryParam(query: URLSearchParams, name: string): string | undefined {
  for (const [k, v] of query) if (k.toLowerCase() === name.toLowerCase()) return v;
  return undefined;
}

/** The ARM action a 403 names for the request. */
function actionOf(path: string): string {
  if (ZONE.test(path)) return "Microsoft.Network/dnsZones/read";
  if (BINDINGS.exec(path)?.[4] !== undefined)
    return "Microsoft.Web/sites/slots/hostNameBindings/read";
  if (BINDINGS.test(path)) return "Microsoft.Web/sites/hostNameBindings/read";
  return "Microsoft.Web/sites/read";
}

function faultAnswer(
  fault: Exclude<ArmFault, "hang" | "endless" | "endless-403">,
  path: string,
  auth: string,
): Answer {
  switch (fault) {
    case 401:
      return unauthorized("InvalidAuthenticationToken", "The access token is invalid.");
    case 403:
      return { status: 403, body: authorizationFailed(actionOf(path), decode(path)) };
    case 404:
      return notFound("ResourceNotFound", `The Resource '${decode(path)}' was not found.`);
    case 500:
      return {
        status: 500,
        body: armError(
          "InternalServerError",
          "Encountered internal server error. Diagnostic information: timestamp '20261126T000000Z', subscription id '', tracking id '00000000-0000-0000-0000-000000000000'.",
        ),
      };
    case "echo-token":
      return {
        status: 500,
        body: armError("InternalServerError", `upstream rejected the request with ${auth}`),
      };
  }
}

function unauthorized(code: string, message: string): Answer {
  return {
    status: 401,
    body: armError(code, message),
    headers: {
      "www-authenticate": `Bearer authorization_uri="https://login.windows.net/", error="invalid_token", error_description="${message}"`,
    },
  };
}

export async function startArm(options: ArmOptions): Promise<ArmSimulator> {
  const state = new ArmState();
  const graph = new GraphState();
  const requests: ArmRequest[] = [];
  let pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const acceptToken = options.acceptToken ?? ((token: string) => token !== "");
  let url = "";

  const route = (path: string, query: URLSearchParams): Answer => {
    const zone = ZONE.exec(path);
    if (zone) {
      const [s, rg, name] = [decode(zone[1]), decode(zone[2]), decode(zone[3])];
      const found = state.zone(s, rg, name);
      if (found) return { status: 200, body: zoneBody(found) };
      return notFound(
        "ResourceNotFound",
        `The Resource 'Microsoft.Network/dnszones/${name}' under resource group '${rg}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`,
      );
    }
    const bindings = BINDINGS.exec(path);
    if (bindings) {
      const [s, rg, name] = [decode(bindings[1]), decode(bindings[2]), decode(bindings[3])];
      const slotName = bindings[4] === undefined ? undefined : decode(bindings[4]);
      const site = state.site(s, rg, name);
      if (!site) {
        return notFound(
          "ParentResourceNotFound",
          `Can not perform requested operation on nested resource. Parent resource '${name}' not found.`,
        );
      }
      if (slotName === undefined) {
        const hosts = [...site.hostNames, defaultHostName(site.name)];
        return { status: 200, body: { value: hosts.map((h) => bindingBody(site, h)) } };
      }
      const slot = site.slots?.find((x) => x.name.toLowerCase() === slotName.toLowerCase());
      if (!slot) {
        return notFound(
          "ParentResourceNotFound",
          `Can not perform requested operation on nested resource. Parent resource '${name}/${slotName}' not found.`,
        );
      }
      const hosts = [...slot.hostNames, defaultHostName(site.name, slot.name)];
      return {
        status: 200,
        body: { value: hosts.map((h) => bindingBody(site, h, slot.name)) },
      };
    }
    const sites = SITES.exec(path);
    if (sites) {
      const all = state.sitesOf(decode(sites[1]));
      const start = Math.max(0, Number.parseInt(queryParam(query, "$skipToken") ?? "0", 10) || 0);
      const end = start + pageSize;
      const body: { value: unknown[]; nextLink?: string } = {
        value: all.slice(start, end).map(siteBody),
      };
      if (end < all.length) {
        const next = new URLSearchParams({
          "api-version": queryParam(query, "api-version") ?? "",
          $skipToken: String(end),
        });
        body.nextLink = `${url}${path}?${next.toString()}`;
      }
      return { status: 200, body };
    }
    return notFound(
      "InvalidResourceType",
      `The resource type could not be found in the namespace for api version '${queryParam(query, "api-version") ?? ""}'.`,
    );
  };

  const endless = { bytes: 0, open: 0 };
  /**
   * A JSON answer that never ends: a list whose items keep coming, each write waiting for the
   * client to take the last one, until the client closes the connection (or close() does).
   */
  const sendEndless = (res: ServerResponse, status: number) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    endless.open += 1;
    const item = Buffer.from(
      `${JSON.stringify({ name: "endless", properties: { hostNames: ["endless.example"] } })},`,
    );
    const chunk = Buffer.concat(Array.from({ length: 512 }, () => item));
    let closed = false;
    res.once("close", () => {
      closed = true;
      endless.open -= 1;
    });
    const pump = () => {
      while (!closed) {
        endless.bytes += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
    };
    endless.bytes += 10;
    res.write('{"value":[');
    pump();
  };

  let lastAnswerBytes = 0;
  const send = (res: ServerResponse, answer: Answer) => {
    const text = JSON.stringify(answer.body);
    lastAnswerBytes = Buffer.byteLength(text);
    res.writeHead(answer.status, {
      "content-type": "application/json; charset=utf-8",
      "x-ms-request-id": "00000000-0000-0000-0000-0000000000a1",
      ...answer.headers,
    });
    res.end(text);
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined) => {
    const raw = req.url ?? "/";
    const q = raw.indexOf("?");
    const path = q < 0 ? raw : raw.slice(0, q);
    const queryText = q < 0 ? "" : raw.slice(q + 1);
    const auth = req.headers.authorization ?? "";
    const bearer = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
    requests.push({
      method: req.method ?? "",
      path,
      query: queryText,
      hadBearer: bearer !== undefined,
    });
    if (bearer === undefined) {
      send(
        res,
        unauthorized(
          "AuthenticationFailed",
          "Authentication failed. The 'Authorization' header is missing.",
        ),
      );
      return;
    }
    if (!acceptToken(bearer)) {
      send(res, unauthorized("InvalidAuthenticationToken", "The access token is invalid."));
      return;
    }
    const fault = state.faultFor(path);
    if (fault === "hang") return; // Read, never answered: close() drops the connection.
    if (fault === "endless" || fault === "endless-403") {
      return sendEndless(res, fault === "endless" ? 200 : 403);
    }
    if (fault !== undefined) {
      send(res, faultAnswer(fault, path, auth));
      return;
    }
    const isGraph = path.toLowerCase().replace(/\/+$/, "") === GRAPH_PATH;
    if (isGraph && req.method === "POST") {
      if (!queryParam(new URLSearchParams(queryText), "api-version")) {
        send(res, {
          status: 400,
          body: armError(
            "MissingApiVersionParameter",
            "The api-version query parameter (?api-version=) is required for all requests.",
          ),
        });
        return;
      }
      send(res, graph.answer(parseJson(body), bearer));
      return;
    }
    if (req.method !== "GET") {
      send(res, {
        status: 405,
        body: armError(
          "MethodNotAllowed",
          `The simulator's ARM serves GET only, not ${req.method}.`,
        ),
      });
      return;
    }
    const query = new URLSearchParams(queryText);
    if (!queryParam(query, "api-version")) {
      send(res, {
        status: 400,
        body: armError(
          "MissingApiVersionParameter",
          "The api-version query parameter (?api-version=) is required for all requests.",
        ),
      });
      return;
    }
    send(res, route(path.replace(/\/+$/, ""), query));
  };

  const server = createServer({ key: options.key, cert: options.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on("end", () => handle(req, res, size <= MAX_BODY ? Buffer.concat(chunks) : undefined));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    addZone: (zone) => state.addZone(zone),
    removeZone: (s, rg, name) => state.removeZone(s, rg, name),
    addSite: (site) => state.addSite(site),
    removeSite: (s, rg, name) => state.removeSite(s, rg, name),
    setPageSize: (size) => {
      pageSize = Math.max(1, Math.floor(size));
    },
    setFault: (prefix, fault) => state.setFault(prefix, fault),
    clearFaults: () => state.clearFaults(),
    get lastAnswerBytes() {
      return lastAnswerBytes;
    },
    endless,
    estate: graph,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
