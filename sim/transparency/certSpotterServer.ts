import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  answerFault,
  type CertSpotterFault,
  type CertSpotterFaultKind,
} from "./certSpotterFaults.js";
import { type IssuanceQuery, parseIssuanceQuery, selectPage } from "./issuanceQuery.js";
import { type IssuanceSeed, issuanceJson, type StoredIssuance } from "./issuances.js";

/**
 * A small Cert Spotter (SSLMate's Certificate Transparency search API) for tests and the
 * sandbox: `GET /v1/issuances` with its query parameters, paging by `after` until `[]`, the
 * `expand` fields, an API key (Bearer, or Basic with the key as user name), an hourly
 * allowance answered with 429 and `Retry-After`, and hostile answers (certSpotterFaults.ts).
 * Plain HTTP on 127.0.0.1: the client's URL is a setting.
 */

export interface CertSpotterOptions {
  /**
   * When set, every request must carry `Authorization: Bearer <apiKey>` or
   * `Authorization: Basic base64(<apiKey>:)`. Default: none needed (Cert Spotter answers
   * without a key, with a small allowance).
   */
  readonly apiKey?: string | undefined;
  /** Keys refused as revoked (401), whether or not `apiKey` is set. */
  readonly revokedKeys?: readonly string[] | undefined;
  /** Issuances per page (default 100; Cert Spotter does not document its own). */
  readonly pageSize?: number | undefined;
  /** Requests answered per hour on the sim clock; beyond: 429 (default unlimited). */
  readonly limitPerHour?: number | undefined;
  /** The sim clock: what has expired, the hourly window, `revocation.checked_at`. */
  readonly now?: (() => Date) | undefined;
  /** The first id given out (default 9218060291, the size of real ids in 2025). */
  readonly firstId?: number | undefined;
  /** Port on 127.0.0.1 (default 0: any free one). */
  readonly port?: number | undefined;
}

/** One request as it arrived (its Authorization header's value is never kept). */
export interface CertSpotterRequest {
  readonly method: string;
  readonly path: string;
  /** Each query parameter's values, in order (`domain` and `expand` repeat). */
  readonly query: Readonly<Record<string, readonly string[]>>;
  /** Whether an Authorization header came with it. */
  readonly hadAuthorization: boolean;
  /** The status answered; undefined while streaming or for a reset connection. */
  readonly status?: number | undefined;
  /** The fault that answered it, if one did. */
  readonly fault?: CertSpotterFaultKind | undefined;
}

export interface CertSpotterSimulator {
  /** `http://127.0.0.1:PORT`: the base URL (CERTSCHED_CT_URL). */
  readonly url: string;
  /** Issuances "discovered" now, in this order; each gets the next id. */
  add(...issuances: IssuanceSeed[]): StoredIssuance[];
  /** Every issuance held, in discovery order. */
  issuances(): readonly StoredIssuance[];
  setPageSize(size: number): void;
  /** A hostile answer from the next request on (after auth and the hourly allowance); undefined clears it. */
  setFault(fault: CertSpotterFault | undefined): void;
  /** Every request, in arrival order (the live array). */
  readonly requests: CertSpotterRequest[];
  /** Stops listening and drops open connections (streaming ones included). */
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;
const DEFAULT_FIRST_ID = 9_218_060_291;
export const DEFAULT_PAGE_SIZE = 100;

type Mutable = { -readonly [K in keyof CertSpotterRequest]: CertSpotterRequest[K] };

/** The key an Authorization header presents: Bearer, or Basic with the key as user name. */
function presentedKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1] ?? "", "base64").toString("utf8");
  // The key is the user name and the password is empty: `key:`.
  return decoded.endsWith(":") && decoded.length > 1 ? decoded.slice(0, -1) : undefined;
}

function queryRecord(params: URLSearchParams): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of params) out[k] = [...(out[k] ?? []), v];
  return out;
}

export async function startCertSpotter(
  options: CertSpotterOptions = {},
): Promise<CertSpotterSimulator> {
  const now = options.now ?? (() => new Date());
  const firstId = BigInt(options.firstId ?? DEFAULT_FIRST_ID);
  let nextId = firstId;
  let pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
  const revoked = new Set(options.revokedKeys ?? []);
  const store: StoredIssuance[] = [];
  const requests: CertSpotterRequest[] = [];
  /** When each request counted against the hourly allowance was answered (sim clock, ms). */
  const answeredAt: number[] = [];
  let fault: CertSpotterFault | undefined;

  const takeIds = (count: number): bigint => {
    const first = nextId;
    nextId += BigInt(Math.max(1, count));
    return first;
  };

  const send = (
    res: ServerResponse,
    record: Mutable,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    record.status = status;
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

  /** Why the request is refused before anything else (401), or undefined. */
  const authProblem = (header: string | undefined): string | undefined => {
    const key = presentedKey(header);
    if (key !== undefined && revoked.has(key)) return "This API key has been revoked.";
    if (options.apiKey === undefined) return undefined;
    if (header === undefined) return "An API key is required: send Authorization: Bearer <key>.";
    if (key !== options.apiKey) return "The API key is not valid.";
    return undefined;
  };

  /** Seconds until the hourly allowance has room again, or undefined when it has room now. */
  const overAllowance = (at: number): number | undefined => {
    if (options.limitPerHour === undefined) return undefined;
    while (answeredAt.length > 0 && (answeredAt[0] ?? 0) <= at - HOUR_MS) answeredAt.shift();
    if (answeredAt.length < options.limitPerHour) {
      answeredAt.push(at);
      return undefined;
    }
    return Math.max(1, Math.ceil(((answeredAt[0] ?? at) + HOUR_MS - at) / 1000));
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://sim.invalid");
    const record: Mutable = {
      method: req.method ?? "",
      path: url.pathname,
      query: queryRecord(url.searchParams),
      hadAuthorization: req.headers.authorization !== undefined,
    };
    requests.push(record);
    const problem = authProblem(req.headers.authorization);
    if (problem !== undefined) {
      // The status and code for a missing, bad or revoked key are the simulator's choice:
      // Cert Spotter's reference does not document them (401 and SSLMate's error object).
      send(res, record, 401, { code: "unauthorized", message: problem });
      return;
    }
    const clock = now();
    const wait = overAllowance(clock.getTime());
    if (wait !== undefined) {
      send(
        res,
        record,
        429,
        {
          code: "rate_limited",
          message:
            "You have exceeded the rate limit for the Cert Spotter API. Please try again later.",
        },
        { "retry-after": String(wait) },
      );
      return;
    }
    if (url.pathname !== "/v1/issuances") {
      send(res, record, 404, { code: "not_found", message: "No such endpoint." });
      return;
    }
    if (req.method !== "GET") {
      send(
        res,
        record,
        405,
        { code: "method_not_allowed", message: "GET only." },
        { allow: "GET" },
      );
      return;
    }
    const parsed = parseIssuanceQuery(url.searchParams);
    const query: IssuanceQuery | undefined = "status" in parsed ? undefined : parsed;
    if (fault !== undefined) {
      const taken = fault;
      if (taken.once) fault = undefined;
      record.fault = taken.kind;
      if (taken.kind !== "huge-body" && taken.kind !== "reset") {
        res.once("finish", () => {
          record.status = res.statusCode;
        });
      }
      answerFault(taken, req, res, {
        query,
        firstPage: () =>
          query === undefined
            ? []
            : selectPage(store, { ...query, after: undefined }, clock, pageSize),
        takeIds,
        firstId,
        now: clock,
        pageSize,
      });
      return;
    }
    if ("status" in parsed) {
      send(res, record, parsed.status, { code: parsed.code, message: parsed.message });
      return;
    }
    const page = selectPage(store, parsed, clock, pageSize);
    send(
      res,
      record,
      200,
      page.map((i) => issuanceJson(i, parsed.expand, clock)),
    );
  };

  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => handle(req, res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    add: (...seeds) => {
      const added = seeds.map((seed) => ({ ...seed, id: takeIds(1).toString() }));
      store.push(...added);
      return added;
    },
    issuances: () => [...store],
    setPageSize: (size) => {
      pageSize = Math.max(1, Math.floor(size));
    },
    setFault: (next) => {
      fault = next;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
