import type { IncomingMessage, ServerResponse } from "node:http";
import type { IssuanceQuery } from "./issuanceQuery.js";
import { type CertSpotterIssuer, issuanceJson, type StoredIssuance } from "./issuances.js";

/**
 * Hostile answers of the simulated Cert Spotter, for the tests that hold the client and the use
 * case to their bounds. Each is persistent until cleared, or one-shot with `once: true` (the
 * first request that reaches it after auth and the hourly limit takes it).
 *
 * - `huge-body`: 200 with a JSON array of about `megabytes` MiB (valid issuances), streamed as
 *   the client reads it; close() or the client hanging up stops it.
 * - `huge-page`: 200 with a page of `count` issuances for the first domain asked, whatever
 *   the page size.
 * - `many-names`: 200 with one issuance of `count` DNS names under the first domain asked.
 * - `hostile-names`: 200 with one issuance whose names and issuer hold control and bidi
 *   characters and HTML.
 * - `extreme-dates`: 200 with two issuances: valid from 1960 to 9999, and from 9999 on.
 * - `ids-backwards`: 200 with three issuances whose ids go down, all below `after` (or below
 *   the first id when there is none).
 * - `endless-paging`: the first page of what matches, whatever `after` says (never `[]`).
 * - `html-body`: 200 with `content-type: text/html` and an HTML page.
 * - `rate-limited`: 429 with `Retry-After: <retryAfter>` (as given: seconds or an HTTP date)
 *   and `{"code":"rate_limited",…}`.
 * - `redirect`: 302 to `location` (default another host, `http://elsewhere.invalid/…`).
 * - `server-error`: 500 with `{"code":"internal_error",…}`.
 * - `reset`: the connection is reset (TCP RST) without an answer.
 */
export type CertSpotterFault = (
  | { readonly kind: "huge-body"; readonly megabytes: number }
  | { readonly kind: "huge-page"; readonly count: number }
  | { readonly kind: "many-names"; readonly count: number }
  | { readonly kind: "hostile-names" }
  | { readonly kind: "extreme-dates" }
  | { readonly kind: "ids-backwards" }
  | { readonly kind: "endless-paging" }
  | { readonly kind: "html-body" }
  | { readonly kind: "rate-limited"; readonly retryAfter: string }
  | { readonly kind: "redirect"; readonly location?: string }
  | { readonly kind: "server-error" }
  | { readonly kind: "reset" }
) & {
  /** Answer one request this way, then none (default: every request until cleared). */
  readonly once?: boolean;
};

export type CertSpotterFaultKind = CertSpotterFault["kind"];

/** The names and issuer of `hostile-names`: what a client must escape before showing. */
export const HOSTILE_NAMES: readonly string[] = [
  "evil\u0007\u001b[31m.example.com",
  "\u202egoogle.com\u202c.example.com",
  "<script>alert(1)</script>.example.com",
  "line\nbreak.example.com",
  "\u0000nul.example.com",
];
export const HOSTILE_ISSUER = "<b>Evil</b> CA \u202e\u001b[2J";

const ZERO = "0".repeat(64);
const hex = (n: bigint) => n.toString(16).padStart(64, "0").slice(-64);

const PLAIN_ISSUER: CertSpotterIssuer = {
  friendly_name: "Simulated CA",
  website: null,
  caa_domains: ["simulated-ca.invalid"],
  operator: null,
  pubkey_sha256: ZERO,
  name: "C=US, O=Simulated CA, CN=Simulated CA R1",
};

/** A made-up issuance with this id, for fault pages. */
export function syntheticIssuance(
  id: bigint,
  names: readonly string[],
  now: Date,
  overrides: Partial<StoredIssuance> = {},
): StoredIssuance {
  return {
    id: id.toString(),
    tbsSha256: hex(id * 3n + 1n),
    certSha256: hex(id * 3n + 2n),
    pubkeySha256: hex(id * 3n + 3n),
    notBefore: new Date(now.getTime() - 86_400_000),
    notAfter: new Date(now.getTime() + 89 * 86_400_000),
    dnsNames: names,
    issuer: PLAIN_ISSUER,
    ...overrides,
  };
}

/** What the server lends a fault: the query, its first page, the next fresh ids, the clock. */
export interface FaultContext {
  readonly query: IssuanceQuery | undefined;
  /** The first page of what matches, ignoring `after` (for `endless-paging`). */
  readonly firstPage: () => StoredIssuance[];
  /** Takes `count` fresh ids from the simulator's counter. */
  readonly takeIds: (count: number) => bigint;
  /** The first id the simulator gave out. */
  readonly firstId: bigint;
  readonly now: Date;
  readonly pageSize: number;
}

function json(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** `huge-body`: a valid JSON array of issuances, written as fast as the client takes it. */
function streamHuge(res: ServerResponse, ctx: FaultContext, megabytes: number): void {
  const domain = ctx.query?.domains[0] ?? "example.com";
  const total = Math.max(1, Math.floor(megabytes * 1024 * 1024));
  let written = 0;
  let closed = false;
  res.once("close", () => {
    closed = true;
  });
  res.writeHead(200, { "content-type": "application/json" });
  res.write("[");
  written += 1;
  const pump = () => {
    while (!closed) {
      const items: string[] = [];
      const first = ctx.takeIds(256);
      for (let i = 0n; i < 256n; i++) {
        const id = first + i;
        const issuance = syntheticIssuance(id, [`n${id}.${domain}`], ctx.now);
        items.push(JSON.stringify(issuanceJson(issuance, ctx.query?.expand ?? new Set(), ctx.now)));
      }
      const chunk = `${written > 1 ? "," : ""}${items.join(",")}`;
      written += chunk.length;
      if (written >= total) return void res.end(`${chunk}]`);
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
  };
  pump();
}

/** The issuances of a fault that answers a page of them; undefined for the other faults. */
function faultPage(fault: CertSpotterFault, ctx: FaultContext): StoredIssuance[] | undefined {
  const domain = ctx.query?.domains[0] ?? "example.com";
  switch (fault.kind) {
    case "huge-page": {
      const first = ctx.takeIds(fault.count);
      return Array.from({ length: fault.count }, (_, i) =>
        syntheticIssuance(first + BigInt(i), [`n${i}.${domain}`], ctx.now),
      );
    }
    case "many-names": {
      const names = Array.from({ length: fault.count }, (_, i) => `n${i}.${domain}`);
      return [syntheticIssuance(ctx.takeIds(1), names, ctx.now)];
    }
    case "hostile-names": {
      const issuer = { ...PLAIN_ISSUER, friendly_name: HOSTILE_ISSUER, name: HOSTILE_ISSUER };
      return [syntheticIssuance(ctx.takeIds(1), HOSTILE_NAMES, ctx.now, { issuer })];
    }
    case "extreme-dates": {
      const first = ctx.takeIds(2);
      const end = new Date("9999-12-31T23:59:59Z");
      return [
        syntheticIssuance(first, [domain], ctx.now, {
          notBefore: new Date("1960-01-01T00:00:00Z"),
          notAfter: end,
        }),
        syntheticIssuance(first + 1n, [domain], ctx.now, {
          notBefore: new Date("9999-01-01T00:00:00Z"),
          notAfter: end,
        }),
      ];
    }
    case "ids-backwards": {
      const below = ctx.query?.after ?? ctx.firstId;
      const ids = [1n, 2n, 3n].map((n) => (below - n > 0n ? below - n : 1n));
      return ids.map((id) => syntheticIssuance(id, [domain], ctx.now));
    }
    case "endless-paging": {
      const first = ctx.firstPage();
      return first.length > 0 ? first : [syntheticIssuance(ctx.firstId, [domain], ctx.now)];
    }
    default:
      return undefined;
  }
}

/** Answers the request as `fault` says. */
export function answerFault(
  fault: CertSpotterFault,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: FaultContext,
): void {
  const issuances = faultPage(fault, ctx);
  if (issuances !== undefined) {
    const expand = ctx.query?.expand ?? new Set<string>();
    json(
      res,
      200,
      issuances.map((i) => issuanceJson(i, expand, ctx.now)),
    );
    return;
  }
  if (fault.kind === "huge-body") {
    streamHuge(res, ctx, fault.megabytes);
  } else if (fault.kind === "html-body") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      "<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Please sign in</h1><script>document.cookie</script></body></html>",
    );
  } else if (fault.kind === "rate-limited") {
    json(
      res,
      429,
      {
        code: "rate_limited",
        message: "You have exceeded the rate limit for the Cert Spotter API.",
      },
      { "retry-after": fault.retryAfter },
    );
  } else if (fault.kind === "redirect") {
    const location = fault.location ?? `http://elsewhere.invalid${req.url ?? "/v1/issuances"}`;
    res.writeHead(302, { location, "content-type": "text/plain" });
    res.end(`Found: ${location}`);
  } else if (fault.kind === "server-error") {
    json(res, 500, {
      code: "internal_error",
      message: "The simulator's Cert Spotter is having a bad day.",
    });
  } else if (fault.kind === "reset") {
    // resetAndDestroy sends a TCP RST; destroy is the fallback on a Node without it.
    if (typeof req.socket.resetAndDestroy === "function") req.socket.resetAndDestroy();
    else req.socket.destroy();
  }
}
