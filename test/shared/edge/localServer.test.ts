import { describe, expect, it } from "vitest";
import { startLocalServer } from "../../../shared/edge/localServer.js";

/*
 * The loopback server that plays the Functions host for `certsched sandbox --dashboard` and the
 * browser test: only its routes answer, whatever the path names.
 */

describe("startLocalServer", () => {
  it.each(["/__proto__", "/constructor", "/toString", "/hasOwnProperty", "/api/other", "/"])(
    "%s is not a route: 404, with or without the key",
    async (path) => {
      const server = await startLocalServer({
        functionKey: "k",
        routes: { "/api/dashboard": async () => ({ status: 200, body: "page" }) },
      });
      try {
        const withKey = await fetch(`${server.origin}${path}?code=k`);
        const without = await fetch(`${server.origin}${path}`);

        expect([withKey.status, without.status]).toEqual([404, 404]);
        expect(await withKey.text()).toBe("not found\n");
      } finally {
        await server.close();
      }
    },
  );

  it("serves its route with the key, 401 without", async () => {
    const server = await startLocalServer({
      functionKey: "k",
      routes: { "/api/dashboard": async () => ({ status: 200, body: "page" }) },
    });
    try {
      const ok = await fetch(`${server.origin}/api/dashboard?code=k`);
      const refused = await fetch(`${server.origin}/api/dashboard?code=x`);

      expect([ok.status, await ok.text(), refused.status]).toEqual([200, "page", 401]);
    } finally {
      await server.close();
    }
  });
});
