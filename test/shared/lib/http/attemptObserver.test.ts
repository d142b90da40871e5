import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AttemptReport,
  observeAttempts,
  reportAttempt,
} from "../../../../shared/lib/http/attemptObserver.js";
import { HttpClient } from "../../../../shared/lib/http/httpClient.js";
import { REPEATABLE } from "../../../../shared/lib/http/retryPolicy.js";

/** Answers 429 (Retry-After 0) to the first `throttle` requests, then 200. */
let throttle = 0;
const server = createServer((_req, res) => {
  if (throttle > 0) {
    throttle -= 1;
    res.writeHead(429, { "retry-after": "0" }).end("slow down");
    return;
  }
  res.writeHead(200, { "content-type": "text/plain" }).end("ok");
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/renew`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const request = () => ({
  upstream: "publicRenew" as const,
  url,
  headers: {},
  body: "{}",
  policy: REPEATABLE,
});

describe("observeAttempts", () => {
  it("tells the observer of every attempt of the HttpClient inside it, retries included", async () => {
    const client = new HttpClient({ timeoutMs: 5_000 });
    const reports: AttemptReport[] = [];
    throttle = 2;
    let retries = 0;
    const res = await observeAttempts(
      {
        attempted: (r) => reports.push(r),
        retrying: async () => {
          // Asked after the wait, before the retry is sent.
          expect(reports).toHaveLength(retries + 1);
          retries += 1;
        },
      },
      () => client.send(request()),
    );
    await client.close();
    expect(res.status).toBe(200);
    expect(retries).toBe(2);
    expect(reports.map((r) => [r.upstream, r.status])).toEqual([
      ["publicRenew", 429],
      ["publicRenew", 429],
      ["publicRenew", 200],
    ]);
    for (const r of reports) expect(r.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("tells no one outside it, and an observer that throws changes nothing", async () => {
    const client = new HttpClient({ timeoutMs: 5_000 });
    const reports: AttemptReport[] = [];
    await observeAttempts({ attempted: (r) => reports.push(r) }, async () => undefined);
    expect((await client.send(request())).status).toBe(200);
    expect(reports).toEqual([]);
    throttle = 1;
    const res = await observeAttempts(
      {
        attempted: () => {
          throw new Error("observer bug");
        },
        retrying: async () => {
          throw new Error("observer bug");
        },
      },
      () => client.send(request()),
    );
    expect(res.status).toBe(200);
    expect(() =>
      reportAttempt({ upstream: "list", durationMs: 1, status: 200, errorCode: undefined }),
    ).not.toThrow();
    await client.close();
  });

  it("reports a refused connection by its code, without a status", async () => {
    const client = new HttpClient({ timeoutMs: 2_000 });
    const reports: AttemptReport[] = [];
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await observeAttempts({ attempted: (r) => reports.push(r) }, () =>
      client
        .send({
          ...request(),
          url: `http://127.0.0.1:${port}/`,
          policy: { ...REPEATABLE, maxRetries: 0 },
        })
        .catch(() => undefined),
    );
    await client.close();
    expect(reports).toEqual([
      expect.objectContaining({ status: undefined, errorCode: "ECONNREFUSED" }),
    ]);
  });
});
