import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AttemptObserver,
  type AttemptReport,
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

describe("the request's attempt observer", () => {
  it("is told of every attempt of the HttpClient call it rides on, retries included", async () => {
    const client = new HttpClient({ timeoutMs: 5_000 });
    const reports: AttemptReport[] = [];
    throttle = 2;
    let retries = 0;
    const observer: AttemptObserver = {
      attempted: (r) => reports.push(r),
      retrying: async () => {
        // Asked after the wait, before the retry is sent.
        expect(reports).toHaveLength(retries + 1);
        retries += 1;
      },
    };
    const res = await client.send({ ...request(), observer });
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

  it("tells no one of another call's attempts, and an observer that throws changes nothing", async () => {
    const client = new HttpClient({ timeoutMs: 5_000 });
    const reports: AttemptReport[] = [];
    const watching: AttemptObserver = { attempted: (r) => reports.push(r) };
    // One call with an observer and one without, at the same time: only its own are reported.
    const [watched, unwatched] = await Promise.all([
      client.send({ ...request(), observer: watching }),
      client.send(request()),
    ]);
    expect([watched.status, unwatched.status]).toEqual([200, 200]);
    expect(reports).toHaveLength(1);
    throttle = 1;
    const failing: AttemptObserver = {
      attempted: () => {
        throw new Error("observer bug");
      },
      retrying: async () => {
        throw new Error("observer bug");
      },
    };
    const res = await client.send({ ...request(), observer: failing });
    expect(res.status).toBe(200);
    const report = { upstream: "list" as const, durationMs: 1, status: 200, errorCode: undefined };
    expect(() => reportAttempt(failing, report)).not.toThrow();
    expect(() => reportAttempt(undefined, report)).not.toThrow();
    await client.close();
  });

  it("reports a refused connection by its code, without a status", async () => {
    const client = new HttpClient({ timeoutMs: 2_000 });
    const reports: AttemptReport[] = [];
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await client
      .send({
        ...request(),
        url: `http://127.0.0.1:${port}/`,
        policy: { ...REPEATABLE, maxRetries: 0 },
        observer: { attempted: (r) => reports.push(r) },
      })
      .catch(() => undefined);
    await client.close();
    expect(reports).toEqual([
      expect.objectContaining({ status: undefined, errorCode: "ECONNREFUSED" }),
    ]);
  });
});
