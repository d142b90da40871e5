import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type CertSpotterClientOptions,
  createCertSpotterClient,
  issuancesUrl,
} from "../../../../shared/adapters/transparency/certSpotterClient.js";
import type { IssuanceQuery, LogWatcher } from "../../../../shared/core/ports/transparency.js";

/**
 * The log watcher against a small Cert Spotter stand-in over a real loopback socket: each test
 * sets how the server answers. (The project's simulator is tested on its own.)
 */

const KEY = "ctk_live_7d2e9a41c0b8f3e65a1d";
const T0 = new Date("2026-12-02T12:00:00Z");

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
interface Seen {
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
}

let handler: Handler;
const seen: Seen[] = [];
let server: Server;
let other: Server;
let otherSeen = 0;
let baseUrl: string;
let otherUrl: string;

const listen = async (s: Server) => {
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    handler(req, res);
  });
  other = createServer((_req, res) => {
    otherSeen++;
    res.end("[]");
  });
  baseUrl = await listen(server);
  // Another host: "localhost" names the other server; the watcher was given 127.0.0.1.
  otherUrl = (await listen(other)).replace("127.0.0.1", "localhost");
});
afterAll(async () => {
  server.closeAllConnections();
  other.closeAllConnections();
  await Promise.all([
    new Promise((resolve) => server.close(resolve)),
    new Promise((resolve) => other.close(resolve)),
  ]);
});

const clients: LogWatcher[] = [];
const open = (over: Partial<CertSpotterClientOptions> = {}) => {
  const client = createCertSpotterClient({
    baseUrl,
    apiKey: async () => KEY,
    timeoutMs: 2_000,
    now: () => T0,
    ...over,
  });
  clients.push(client);
  return client;
};
beforeEach(() => {
  seen.splice(0);
  otherSeen = 0;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => {
  return (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
};
const query: IssuanceQuery = { name: { name: "example.org", subdomains: true, source: "setting" } };
const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(5_000_000 + i) }));
/** No form of the key in what the watcher returned. */
const expectNoKey = (outcome: unknown) => {
  const text = JSON.stringify(outcome);
  expect(text).not.toContain(KEY.slice(0, 12));
  expect(text).not.toContain(KEY.slice(-12));
  expect(text).not.toContain(Buffer.from(KEY).toString("base64").slice(0, 16));
};

describe("createCertSpotterClient: the request", () => {
  it("GET /v1/issuances with the name, subdomains, wildcards, the cursor and the three expands", async () => {
    handler = json(200, []);
    const client = open();
    await client.issuances(query);
    await client.issuances({
      name: { name: "host.example.net", subdomains: false, source: "inventory" },
      after: "9218060291",
    });
    expect(seen.map((s) => s.url)).toEqual([
      "/v1/issuances?domain=example.org&include_subdomains=true&match_wildcards=true&after=&expand=dns_names&expand=issuer&expand=revocation",
      "/v1/issuances?domain=host.example.net&include_subdomains=false&match_wildcards=true&after=9218060291&expand=dns_names&expand=issuer&expand=revocation",
    ]);
    expect(seen[0]?.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      accept: "application/json",
      "user-agent": "certsched",
    });
  });

  it("without a key: no Authorization header at all", async () => {
    handler = json(200, []);
    await open({ apiKey: async () => undefined }).issuances(query);
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it("a base URL with a trailing slash, and a name that needs encoding", () => {
    expect(
      issuancesUrl("https://api.certspotter.com/", {
        name: { name: "a&b=c.example", subdomains: true, source: "setting" },
      }),
    ).toBe(
      "https://api.certspotter.com/v1/issuances?domain=a%26b%3Dc.example&include_subdomains=true&match_wildcards=true&after=&expand=dns_names&expand=issuer&expand=revocation",
    );
  });

  it("tells telemetry of each call as upstream ct, with its status", async () => {
    handler = json(429, { code: "rate_limited", message: "later" });
    const onCall = vi.fn();
    await open({ onCall }).issuances(query);
    expect(onCall).toHaveBeenCalledOnce();
    expect(onCall.mock.calls[0]?.[0]).toBe("ct");
    expect(onCall.mock.calls[0]?.[2]).toBe(429);
  });
});

describe("createCertSpotterClient: pages", () => {
  it("a page's issuances in order, lastId the last one's, not truncated", async () => {
    handler = json(200, [
      {
        id: "9218060291",
        tbs_sha256: "A".repeat(64),
        pubkey_sha256: "b".repeat(64),
        cert_sha256: "c".repeat(64),
        not_before: "2025-01-14T00:00:00Z",
        not_after: "2026-02-14T23:59:59Z",
        revoked: false,
        dns_names: ["example.org", "www.example.org"],
        issuer: { friendly_name: "Let's Encrypt", name: "C=US, O=Let's Encrypt, CN=R10" },
        revocation: { time: null, reason: null, checked_at: "2025-03-07T14:49:05Z" },
      },
      { id: "9218060300", revocation: { time: "2025-05-01T00:00:00Z", reason: 4 } },
    ]);
    const page = await open().issuances(query);
    expect(page).toMatchObject({
      kind: "page",
      lastId: "9218060300",
      truncated: false,
      problems: [],
    });
    if (page.kind !== "page") throw new Error("expected a page");
    expect(page.issuances[0]).toMatchObject({
      id: "9218060291",
      tbsSha256: "a".repeat(64),
      dnsNames: ["example.org", "www.example.org"],
      issuer: "Let's Encrypt",
      notAfter: new Date("2026-02-14T23:59:59Z"),
      problems: [],
    });
    expect(page.issuances[1]).toMatchObject({
      revoked: true,
      revokedAt: new Date("2025-05-01T00:00:00Z"),
    });
  });

  it("100,000 entries in one answer: the first 1,000 kept, truncated, lastId the 1,000th", async () => {
    handler = json(200, ids(100_000));
    const page = await open().issuances(query);
    expect(page).toMatchObject({ kind: "page", truncated: true, lastId: "5000999" });
    expect(page.kind === "page" && page.issuances).toHaveLength(1_000);
  });

  it("exactly maxPageIssuances entries is not truncated; one more is", async () => {
    const client = open();
    handler = json(200, ids(1_000));
    expect(await client.issuances(query)).toMatchObject({ truncated: false, lastId: "5000999" });
    handler = json(200, ids(1_001));
    expect(await client.issuances(query)).toMatchObject({ truncated: true, lastId: "5000999" });
    handler = json(200, ids(3));
    expect(await open({ maxPageIssuances: 2 }).issuances(query)).toMatchObject({
      truncated: true,
      lastId: "5000001",
    });
  });

  it("an issuance with 10,000 names, and names with control, bidi and HTML characters", async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `h${i}.example.org`);
    handler = json(200, [
      { id: "1", dns_names: many },
      { id: "2", dns_names: ["a.example.org\r\nforged line", "\u202egro.elpmaxe", "<img src=x>"] },
    ]);
    const page = await open().issuances(query);
    if (page.kind !== "page") throw new Error("expected a page");
    expect(page.issuances[0]?.dnsNames).toHaveLength(100);
    expect(page.issuances[0]?.moreNames).toBe(9_900);
    expect(page.issuances[1]?.dnsNames).toEqual([
      "a.example.org\\u{0d}\\u{0a}forged line",
      "\\u{202e}gro.elpmaxe",
      "<img src=x>",
    ]);
  });

  it("dates in the year 9999 and in 1960 are left out, each with its problem", async () => {
    handler = json(200, [
      { id: "1", not_before: "1960-05-01T00:00:00Z", not_after: "9999-12-31T23:59:59Z" },
    ]);
    const page = await open().issuances(query);
    if (page.kind !== "page") throw new Error("expected a page");
    expect(page.issuances[0]).toMatchObject({ notBefore: undefined, notAfter: undefined });
    expect(page.issuances[0]?.problems).toEqual(
      expect.arrayContaining([
        "not_before 1960-05-01T00:00:00Z is outside 1970-01-01..9998-12-31",
        "not_after 9999-12-31T23:59:59Z is outside 1970-01-01..9998-12-31",
      ]),
    );
  });
});

describe("createCertSpotterClient: bad answers, bounded", () => {
  it("100 MB of body: bad-answer at the bound, the rest never read", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1024 * 1024, "[");
      let sent = 0;
      const more = () => {
        while (sent < 100 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        if (!res.destroyed) res.end();
      };
      res.on("error", () => undefined);
      more();
    };
    const page = await open().issuances(query);
    expect(page).toEqual({
      kind: "failed",
      reason: "bad-answer",
      detail: `ct: response larger than ${16 * 1024 * 1024} bytes, the most certsched reads from it`,
    });
  });

  it("a 200 with an HTML page is a bad answer naming its title", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><html><head><title>Sign in</title></head><body>…</body></html>");
    };
    expect(await open().issuances(query)).toEqual({
      kind: "failed",
      reason: "bad-answer",
      status: 200,
      detail: 'Cert Spotter answered 200 with HTML page "Sign in", not a list of issuances',
    });
  });

  it("a redirect to another host is not followed: that host hears nothing", async () => {
    handler = (_req, res) => {
      res.writeHead(302, { location: `${otherUrl}/v1/issuances?domain=example.org` });
      res.end();
    };
    const outcome = await open().issuances(query);
    expect(outcome).toMatchObject({
      kind: "failed",
      reason: "bad-answer",
      status: 302,
      detail: `Cert Spotter answered 302, redirected to ${new URL(otherUrl).host} (not followed)`,
    });
    expect(otherSeen).toBe(0);
    expect(seen).toHaveLength(1);
  });
});

describe("createCertSpotterClient: refusals and the key", () => {
  it("429 with Retry-After: 999999999 waits a day; with an HTTP date, until that date", async () => {
    const client = open();
    handler = json(
      429,
      { code: "rate_limited", message: "slow down" },
      { "retry-after": "999999999" },
    );
    expect(await client.issuances(query)).toMatchObject({
      kind: "failed",
      reason: "rate-limited",
      status: 429,
      retryAfterMs: 86_400_000,
    });
    handler = json(429, "", { "retry-after": "Wed, 02 Dec 2026 12:20:00 GMT" });
    expect(await client.issuances(query)).toMatchObject({
      reason: "rate-limited",
      retryAfterMs: 1_200_000,
    });
  });

  it("401 from a server that echoes the Authorization header: unauthorized, the key never shown", async () => {
    handler = (req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      const auth = req.headers.authorization ?? "";
      const key = auth.replace(/^Bearer /, "");
      res.end(
        JSON.stringify({
          code: "invalid_api_key",
          message: `bad key ${key}; you sent "${auth}"; base64 ${Buffer.from(key).toString("base64")}`,
        }),
      );
    };
    const outcome = await open().issuances(query);
    expect(outcome).toMatchObject({
      kind: "failed",
      reason: "unauthorized",
      status: 401,
      detail: expect.stringContaining("invalid_api_key: bad key [REDACTED]"),
    });
    expectNoKey(outcome);
  });

  it("a 500 that echoes the key as plain text: refused, the key never shown", async () => {
    handler = (req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`internal error for ${req.headers.authorization?.slice(7)}`);
    };
    const outcome = await open().issuances(query);
    expect(outcome).toMatchObject({
      reason: "refused",
      status: 500,
      detail: "Cert Spotter answered 500: internal error for [REDACTED]",
    });
    expectNoKey(outcome);
  });

  it("a key that cannot be read: unreachable, said, nothing sent", async () => {
    const outcome = await open({
      apiKey: async () => {
        throw new Error("Key Vault: forbidden");
      },
    }).issuances(query);
    expect(outcome).toEqual({
      kind: "failed",
      reason: "unreachable",
      detail: "the Cert Spotter API key could not be read: Error: Key Vault: forbidden",
    });
    expect(seen).toHaveLength(0);
  });
});

describe("createCertSpotterClient: no answer", () => {
  it("a server that never answers: unreachable within the timeout", async () => {
    handler = () => undefined;
    const started = performance.now();
    const outcome = await open({ timeoutMs: 300 }).issuances(query);
    expect(outcome).toMatchObject({
      kind: "failed",
      reason: "unreachable",
      detail: expect.stringContaining("within 300 ms"),
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    server.closeAllConnections();
  });

  it("a reset: unreachable", async () => {
    handler = (req) => req.socket.destroy();
    expect(await open().issuances(query)).toMatchObject({
      kind: "failed",
      reason: "unreachable",
      detail: expect.stringContaining("ct: cannot reach the service"),
    });
  });

  it("nobody listening: unreachable", async () => {
    const closed = createServer();
    const url = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    expect(await open({ baseUrl: url }).issuances(query)).toMatchObject({
      reason: "unreachable",
      detail: expect.stringContaining("ECONNREFUSED"),
    });
  });

  it("a run that ends: stopped before asking, or while waiting, without waiting for the timeout", async () => {
    handler = () => undefined;
    const client = open({ timeoutMs: 1_500 });
    expect(await client.issuances(query, AbortSignal.abort())).toMatchObject({
      reason: "unreachable",
      detail: "stopped before asking: the run ended",
    });
    expect(seen).toHaveLength(0);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    expect(await client.issuances(query, controller.signal)).toMatchObject({
      reason: "unreachable",
      detail: "stopped while waiting for the answer: the run ended",
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    server.closeAllConnections();
  });
});
