import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadUndici } from "../../../../shared/lib/http/undiciCore.js";

const full = createRequire(import.meta.url)("undici") as typeof import("undici");

describe("loadUndici: undici's pieces without its index", () => {
  it("gives the very Agent, buildConnector and errors undici's index exports (an upgrade that moves a file fails here)", async () => {
    const lib = await loadUndici();
    expect(lib.Agent).toBe(full.Agent);
    expect(lib.buildConnector).toBe(full.buildConnector);
    expect(lib.errors).toBe(full.errors);
  });

  it("loads once: every call gets the same pieces", async () => {
    expect(await loadUndici()).toBe(await loadUndici());
  });

  describe("request, over a real socket", () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      req.on("end", () => {
        seen.push(`${req.method} ${req.url} ${req.headers["x-test"]} ${body}`);
        res.writeHead(201, { "content-type": "text/plain" });
        res.end("answered");
      });
    });
    let base = "";
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it.each([
      [
        "a string URL with a query, POST with a body",
        "/op/a%2Fb?x=1&y=2",
        "POST",
        "{}",
        "/op/a%2Fb?x=1&y=2",
      ],
      ["a URL object without a query, GET", "/challenge/t", "GET", undefined, "/challenge/t"],
    ] as const)(
      "%s: sent on the dispatcher given, path and query kept as encoded",
      async (_, path, method, body, expected) => {
        seen.length = 0;
        const lib = await loadUndici();
        const agent = new lib.Agent();
        try {
          const url = method === "GET" ? new URL(`${base}${path}`) : `${base}${path}`;
          const res = await lib.request(url, {
            dispatcher: agent,
            method,
            headers: { "x-test": "1" },
            ...(body === undefined ? {} : { body }),
          });
          expect(res.statusCode).toBe(201);
          expect(await res.body.text()).toBe("answered");
          expect(seen).toEqual([`${method} ${expected} 1 ${body ?? ""}`]);
        } finally {
          await agent.close();
        }
      },
    );
  });
});
