import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpstreamError } from "../../../../shared/lib/errors.js";
import {
  attempt,
  codeOf,
  MAX_RESPONSE_BYTES,
  NOT_SENT_CODES,
  networkError,
} from "../../../../shared/lib/http/attempt.js";
import { loadUndici } from "../../../../shared/lib/http/undiciCore.js";

const coded = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe("codeOf", () => {
  it("the error's code, else UNKNOWN", () => {
    expect(codeOf(coded("ECONNRESET"))).toBe("ECONNRESET");
    expect(codeOf(new Error("x"))).toBe("UNKNOWN");
    expect(codeOf(null)).toBe("UNKNOWN");
    expect(codeOf(undefined)).toBe("UNKNOWN");
  });
});

describe("NOT_SENT_CODES", () => {
  it("holds the failures before a request is written, not those after", () => {
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]) {
      expect(NOT_SENT_CODES.has(code)).toBe(true);
    }
    for (const code of ["ECONNRESET", "UND_ERR_SOCKET", "UND_ERR_HEADERS_TIMEOUT", "EPIPE"]) {
      expect(NOT_SENT_CODES.has(code)).toBe(false);
    }
  });
});

describe("networkError", () => {
  it("returns an UpstreamError as it is", () => {
    const given = new UpstreamError("UPSTREAM_FAILED", "list", "m");
    expect(networkError("renew", given, 1000)).toBe(given);
  });

  it.each([
    ["UND_ERR_HEADERS_TIMEOUT", "no response headers"],
    ["ETIMEDOUT", "no response headers"],
    ["ABORT_ERR", "no response headers"],
    ["UND_ERR_BODY_TIMEOUT", "the body did not arrive in full"],
    ["UND_ERR_CONNECT_TIMEOUT", "no connection"],
  ])("%s is a retriable timeout saying what did not come", (code, what) => {
    const cause = coded(code);
    const error = networkError("list", cause, 30_000);
    expect(error).toMatchObject({
      code: "UPSTREAM_TIMEOUT",
      upstream: "list",
      retriable: true,
      message: `list: no answer within the timeout (${what} within 30000 ms)`,
    });
    expect(error.cause).toBe(cause);
  });

  it("a response over the cap is a bad response, not retried", () => {
    expect(MAX_RESPONSE_BYTES).toBe(12 * 1024 * 1024);
    expect(networkError("list", coded("CERTSCHED_TOO_LARGE"), 1000)).toMatchObject({
      code: "UPSTREAM_BAD_RESPONSE",
      upstream: "list",
      retriable: false,
      message: `list: response larger than ${MAX_RESPONSE_BYTES} bytes (12 MiB), the most certsched reads`,
    });
  });

  it("anything else is unreachable and retriable, naming the cause", () => {
    expect(networkError("renew", coded("ECONNREFUSED"), 1000)).toMatchObject({
      code: "UPSTREAM_UNREACHABLE",
      retriable: true,
      message: "renew: cannot reach the service (ECONNREFUSED)",
    });
    expect(networkError("renew", coded("UND_ERR_SOCKET"), 1000).message).toBe(
      "renew: cannot reach the service (connection closed by the other side)",
    );
    expect(networkError("get", "not an error", 1000).message).toBe(
      "get: cannot reach the service (UNKNOWN)",
    );
  });
});

describe("attempt, against a loopback server", () => {
  let handle: (req: IncomingMessage, body: string, res: ServerResponse) => void = () => {};
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => handle(req, body, res));
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/op`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function run(
    method: "GET" | "POST" | undefined,
    timeoutMs = 5_000,
    maxResponseBytes?: number,
  ) {
    const lib = await loadUndici();
    const agent = new lib.Agent();
    try {
      return await attempt(
        lib,
        agent,
        { url, method, headers: { "x-test": "1" }, body: '{"a":1}', maxResponseBytes },
        timeoutMs,
      );
    } finally {
      await agent.close();
    }
  }

  it("returns any status with its content type, text and Retry-After; POST by default", async () => {
    const seen: string[] = [];
    handle = (req, body, res) => {
      seen.push(`${req.method} ${req.headers["x-test"]} ${body}`);
      res.writeHead(429, { "content-type": "application/json", "retry-after": "7" });
      res.end('{"busy":true}');
    };
    expect(await run(undefined)).toEqual({
      response: {
        status: 429,
        contentType: "application/json",
        text: '{"busy":true}',
        retryAfter: "7",
      },
      retryAfter: "7",
    });
    expect(seen).toEqual(['POST 1 {"a":1}']);
  });

  it("a request's own size bound (ARI's): exactly the bound is read, one byte more is refused, naming it", async () => {
    handle = (req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("x".repeat(Number(req.headers["x-size"] ?? 0) || 0));
    };
    const lib = await loadUndici();
    const agent = new lib.Agent();
    const sized = (size: number) =>
      attempt(
        lib,
        agent,
        {
          url,
          method: "GET",
          headers: { "x-size": String(size) },
          body: "",
          maxResponseBytes: 100,
        },
        5_000,
      );
    try {
      expect((await sized(100)).response?.text).toHaveLength(100);
      const over = await sized(101);
      expect(over.response).toBeUndefined();
      expect(networkError("ari", over.error, 5_000).message).toBe(
        "ari: response larger than 100 bytes, the most certsched reads from it",
      );
    } finally {
      await agent.close();
    }
  });

  it("`sending` with no body byte to hold (a GET, an empty body): called before anything is written; a rejection sends nothing", async () => {
    const lib = await loadUndici();
    const agent = new lib.Agent();
    const arrived: string[] = [];
    handle = (req, _body, res) => {
      arrived.push(`${req.method}`);
      res.writeHead(202, { "content-type": "text/plain" });
      res.end("ok");
    };
    try {
      for (const [method, body] of [
        ["GET", ""],
        ["POST", ""],
      ] as const) {
        const order: string[] = [];
        const sending = async () => {
          // Nothing has reached the server while the hook runs.
          order.push(`hook saw ${arrived.length} arrivals`);
        };
        arrived.splice(0);
        const outcome = await attempt(
          lib,
          agent,
          { url, method, headers: {}, body, sending },
          5_000,
        );
        expect(outcome.response?.status, method).toBe(202);
        expect(order, method).toEqual(["hook saw 0 arrivals"]);
        expect(arrived, method).toEqual([method]);

        arrived.splice(0);
        const refusal = new Error("the ledger refused");
        const refused = await attempt(
          lib,
          agent,
          { url, method, headers: {}, body, sending: async () => Promise.reject(refusal) },
          5_000,
        );
        expect(refused, method).toEqual({ held: { error: refusal } });
        // Had it been sent, the attempt would have waited for its answer: none arrived.
        expect(arrived, method).toEqual([]);
      }
    } finally {
      await agent.close();
    }
  });

  it("a GET sends no body; a redirect is returned, not followed", async () => {
    const seen: string[] = [];
    handle = (req, body, res) => {
      seen.push(`${req.method} ${body}`);
      res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" });
      res.end();
    };
    const outcome = await run("GET");
    expect(outcome.response?.status).toBe(302);
    expect(outcome.response?.contentType).toBeUndefined();
    expect(outcome.retryAfter).toBeUndefined();
    expect(seen).toEqual(["GET "]);
  });

  it("no headers before the deadline: a headers timeout, which the policy treats as maybe sent", async () => {
    handle = () => {};
    const outcome = await run("POST", 200);
    expect(outcome.response).toBeUndefined();
    expect(codeOf(outcome.error)).toBe("UND_ERR_HEADERS_TIMEOUT");
    expect(networkError("list", outcome.error, 200).code).toBe("UPSTREAM_TIMEOUT");
  });

  it("headers but not the whole body before the deadline: a body timeout", async () => {
    handle = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
    };
    const outcome = await run("GET", 300);
    expect(outcome.response).toBeUndefined();
    expect(codeOf(outcome.error)).toBe("UND_ERR_BODY_TIMEOUT");
  });

  it("a body over MAX_RESPONSE_BYTES is refused; exactly the cap is read", async () => {
    let size = MAX_RESPONSE_BYTES + 1;
    handle = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(Buffer.alloc(size, 97));
    };
    const over = await run("GET");
    expect(codeOf(over.error)).toBe("CERTSCHED_TOO_LARGE");
    size = MAX_RESPONSE_BYTES;
    const at = await run("GET");
    expect(at.response?.text.length).toBe(MAX_RESPONSE_BYTES);
  });
});
