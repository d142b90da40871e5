import { createHash } from "node:crypto";
import {
  appServiceCertificateRow,
  frontDoorRows,
  type GraphFault,
  type GraphRow,
  gatewayRow,
  type SeedAppServiceCertificate,
  type SeedFrontDoorDomain,
  type SeedGateway,
  type SeedSite,
  type SeedVault,
  siteRow,
  vaultRow,
} from "./armEstate.js";
import { type ProjectedRow, projectRows } from "./armProject.js";

/**
 * Azure Resource Graph as the simulator's Resource Manager answers it: POST
 * /providers/Microsoft.ResourceGraph/resources. It runs no KQL: it recognises the `resources`
 * table and the types a query names (`type =~ '…'`, `type in~ ('…')`) and answers the seeded
 * rows of those types, paged by `$top` and an opaque `$skipToken`, with the per-token quota
 * headers Resource Graph sends (x-ms-user-quota-remaining, x-ms-user-quota-resets-after).
 */

export const GRAPH_PATH = "/providers/microsoft.resourcegraph/resources";

/** The seed and fault API tests and the sandbox use: `arm.estate`. */
export interface ArmEstate {
  addAppServiceCertificate(c: SeedAppServiceCertificate): void;
  /** A site, or a slot (`slot` set), with its host names' TLS bindings (hostNameSslStates). */
  addSite(s: SeedSite): void;
  addGateway(g: SeedGateway): void;
  addFrontDoorDomain(d: SeedFrontDoorDomain): void;
  addVault(v: SeedVault): void;
  /** Any row as it is (a test's hostile row: 5 MB, odd dates, control characters). */
  addRow(row: GraphRow): void;
  /** Rows held now. */
  readonly size: number;
  clear(): void;
  /** Every Resource Graph answer gets this fault from now on; undefined removes it. */
  setFault(fault: GraphFault | undefined): void;
  /** A query naming this subscription gets 403; without `subscriptions` its rows are not seen. */
  forbidSubscription(subscriptionId: string, forbidden?: boolean): void;
  /** Queries per token per window (default 15 per 5 s, as Resource Graph's user quota). */
  setQuota(limit: number, windowMs?: number): void;
}

export interface GraphAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

/** A request body larger than this is not read as JSON (Resource Graph's queries are small). */
export const MAX_BODY = 1024 * 1024;

export function parseJson(body: Buffer | undefined): unknown {
  try {
    return body === undefined ? undefined : JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

const MAX_TOP = 1000;
const DEFAULT_TOP = 100;

const error = (
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): GraphAnswer => ({
  status,
  body: { error: { code, message } },
  ...(headers === undefined ? {} : { headers }),
});

/** `hh:mm:ss` of a span in ms, rounded up to a second. */
export function quotaSpan(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

/** The lower-case types a query names after `type`, in the `resources` table; [] if none. */
export function queriedTypes(query: string): string[] {
  if (!/^\s*resources\b/i.test(query)) return [];
  const types = new Set<string>();
  for (const clause of query.matchAll(
    /\btype\s*(?:=~|==|in~|in)\s*(\([^)]*\)|'[^']*'|"[^"]*")/gi,
  )) {
    for (const literal of (clause[1] ?? "").matchAll(/'([^']*)'|"([^"]*)"/g)) {
      types.add((literal[1] ?? literal[2] ?? "").toLowerCase());
    }
  }
  return [...types];
}

interface GraphRequest {
  readonly subscriptions?: unknown;
  readonly query?: unknown;
  readonly options?: {
    readonly $top?: unknown;
    readonly $skipToken?: unknown;
    readonly $skip?: unknown;
  };
}

export class GraphState implements ArmEstate {
  readonly #rows: GraphRow[] = [];
  readonly #forbidden = new Set<string>();
  readonly #quota = new Map<string, { start: number; used: number }>();
  #fault: GraphFault | undefined;
  #limit = 15;
  #windowMs = 5_000;
  #pages = 0;

  constructor(private readonly now: () => number = Date.now) {}

  addAppServiceCertificate(c: SeedAppServiceCertificate) {
    this.#rows.push(appServiceCertificateRow(c));
  }
  addSite(s: SeedSite) {
    this.#rows.push(siteRow(s));
  }
  addGateway(g: SeedGateway) {
    this.#rows.push(gatewayRow(g));
  }
  addFrontDoorDomain(d: SeedFrontDoorDomain) {
    this.#rows.push(...frontDoorRows(d));
  }
  addVault(v: SeedVault) {
    this.#rows.push(vaultRow(v));
  }
  addRow(row: GraphRow) {
    this.#rows.push(row);
  }
  get size() {
    return this.#rows.length;
  }
  clear() {
    this.#rows.splice(0);
    this.#forbidden.clear();
    this.#fault = undefined;
    this.#quota.clear();
  }
  setFault(fault: GraphFault | undefined) {
    this.#fault = fault;
  }
  forbidSubscription(subscriptionId: string, forbidden = true) {
    if (forbidden) this.#forbidden.add(subscriptionId.toLowerCase());
    else this.#forbidden.delete(subscriptionId.toLowerCase());
  }
  setQuota(limit: number, windowMs = 5_000) {
    this.#limit = Math.max(0, Math.floor(limit));
    this.#windowMs = Math.max(1, windowMs);
    this.#quota.clear();
  }

  /** Counts one query against the token's window: the quota headers, or a 429. */
  #charge(token: string): { headers: Record<string, string>; refused?: GraphAnswer } {
    const key = createHash("sha256").update(token).digest("hex");
    const now = this.now();
    let q = this.#quota.get(key);
    if (q === undefined || now - q.start >= this.#windowMs) {
      q = { start: now, used: 0 };
      this.#quota.set(key, q);
    }
    const left = this.#windowMs - (now - q.start);
    if (q.used >= this.#limit) {
      const headers = {
        "x-ms-user-quota-remaining": "0",
        "x-ms-user-quota-resets-after": quotaSpan(left),
        "retry-after": String(Math.max(1, Math.ceil(left / 1000))),
      };
      const message =
        "Please provide below info when asking for support: timestamp = 2026-12-02T00:00:00Z, correlationId = 00000000-0000-0000-0000-0000000000a2. Details: Client application has been throttled and should not attempt to repeat the request until an amount of time has elapsed.";
      return { headers, refused: error(429, "RateLimiting", message, headers) };
    }
    q.used += 1;
    return {
      headers: {
        "x-ms-user-quota-remaining": String(this.#limit - q.used),
        "x-ms-user-quota-resets-after": quotaSpan(left),
      },
    };
  }

  /** The answer to one POST body (already parsed JSON, or undefined when it was not JSON). */
  answer(body: unknown, token: string): GraphAnswer {
    const charged = this.#charge(token);
    if (charged.refused) return charged.refused;
    const withQuota = (a: GraphAnswer): GraphAnswer => ({
      ...a,
      headers: { ...charged.headers, ...a.headers },
    });
    const fault = this.#fault;
    if (typeof fault === "object") {
      return withQuota(
        error(429, "RateLimiting", "Client application has been throttled.", {
          "retry-after": String(fault.retryAfterSeconds),
        }),
      );
    }
    if (fault === 500)
      return withQuota(error(500, "InternalServerError", "Encountered internal server error."));
    return withQuota(this.#query(body as GraphRequest | undefined));
  }

  #query(request: GraphRequest | undefined): GraphAnswer {
    const query = typeof request?.query === "string" ? request.query : undefined;
    if (query === undefined)
      return error(400, "BadRequest", "Please provide a query in the request body.");
    const types = queriedTypes(query);
    if (types.length === 0) {
      return error(
        400,
        "BadRequest",
        "The simulator's Resource Graph recognises `resources | where type =~ '…'` queries only.",
      );
    }
    const named = Array.isArray(request?.subscriptions)
      ? request.subscriptions
          .filter((s): s is string => typeof s === "string")
          .map((s) => s.toLowerCase())
      : undefined;
    const refused = named?.find((s) => this.#forbidden.has(s));
    if (refused !== undefined) {
      return error(
        403,
        "AuthorizationFailed",
        `The client '00000000-0000-0000-0000-00000000c11e' does not have authorization to perform action 'Microsoft.ResourceGraph/resources/read' over scope '/subscriptions/${refused}' or the scope is invalid.`,
      );
    }
    const rows = this.#rows.filter((r) => {
      const sub = r.subscriptionId.toLowerCase();
      if (!types.includes(r.type.toLowerCase())) return false;
      return named === undefined ? !this.#forbidden.has(sub) : named.includes(sub);
    });
    return this.#page(projectRows(query, rows), query, request?.options);
  }

  #page(
    rows: readonly ProjectedRow[],
    query: string,
    options: GraphRequest["options"],
  ): GraphAnswer {
    const top = Math.min(MAX_TOP, Math.max(1, Number(options?.$top) || DEFAULT_TOP));
    const queryHash = createHash("sha256").update(query).digest("hex").slice(0, 12);
    let start = 0;
    if (typeof options?.$skipToken === "string" && options.$skipToken !== "") {
      const decoded = readToken(options.$skipToken);
      if (decoded === undefined || decoded.q !== queryHash) {
        return error(400, "InvalidSkipToken", "The skip token is not valid for this query.");
      }
      start = decoded.o;
    } else if (Number(options?.$skip) > 0) start = Math.floor(Number(options?.$skip));
    const end = Math.min(rows.length, start + top);
    const data = rows.slice(start, end);
    this.#pages += 1;
    let next: string | undefined;
    if (this.#fault === "endless-pages")
      next = writeToken({ o: start, q: queryHash, n: this.#pages });
    else if (this.#fault === "repeat-token") next = writeToken({ o: 0, q: queryHash, n: 0 });
    else if (end < rows.length) next = writeToken({ o: end, q: queryHash, n: 0 });
    return {
      status: 200,
      body: {
        totalRecords: rows.length,
        count: data.length,
        data,
        facets: [],
        resultTruncated: "false",
        ...(next === undefined ? {} : { $skipToken: next }),
      },
    };
  }
}

interface SkipToken {
  readonly o: number;
  readonly q: string;
  readonly n: number;
}

const writeToken = (t: SkipToken) => Buffer.from(JSON.stringify(t)).toString("base64");

function readToken(text: string): SkipToken | undefined {
  try {
    const t = JSON.parse(Buffer.from(text, "base64").toString("utf8")) as Partial<SkipToken>;
    if (typeof t.o !== "number" || !Number.isInteger(t.o) || t.o < 0 || typeof t.q !== "string")
      return undefined;
    return { o: t.o, q: t.q, n: Number(t.n) || 0 };
  } catch {
    return undefined;
  }
}
