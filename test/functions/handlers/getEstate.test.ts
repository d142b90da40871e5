import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEstate } from "../../../functions/getEstate.js";
import { OPERATOR, READER } from "../../../shared/edge/auth/roles.js";
import { SANDBOX_ESTATE_UNMANAGED } from "../../../sim/index.js";
import { configureApp, leaksIn, releaseApp, STACK_FRAME } from "../../support/app.js";
import { type EstateWorld, startEstateWorld } from "../../support/estateWorld.js";
import { httpRequest, invocationContext } from "../../support/invoke.js";
import { EASY_AUTH_ON, principalHeader } from "../../support/principals.js";
import { toReply } from "../../support/reply.js";

/** GET /api/estate over the simulator's Resource Manager and vault: bodies, 400s, the Reader role. */

let world: EstateWorld;
const logs: string[] = [];
beforeAll(async () => {
  world = await startEstateWorld();
  await configureApp(world.settings, await world.seams());
});
afterAll(async () => {
  await releaseApp();
  await world?.close();
});

async function get(query: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const context = invocationContext("getEstate", (_, m) => logs.push(m));
  return toReply(
    await getEstate(httpRequest({ method: "GET", path: "/api/estate", query, headers }), context),
  );
}

describe("GET /api/estate", () => {
  it("200: each account's estate, gaps first, with the request certsched would send for an unmanaged one", async () => {
    const reply = await get();
    expect(reply.status).toBe(200);
    const body = reply.body as {
      estates: {
        account: string;
        expiringDays: number;
        entries: {
          name: string;
          kind: string;
          gaps: string[];
          proposal?: { request: Record<string, unknown>; missing: string[] };
        }[];
      }[];
    };
    expect(body.estates).toHaveLength(1);
    const [first] = body.estates[0]?.entries ?? [];
    expect(first).toMatchObject({
      name: SANDBOX_ESTATE_UNMANAGED.certificate,
      kind: "application-gateway",
      gaps: ["unmanaged-expiring"],
      proposal: {
        request: {
          rootDomain: SANDBOX_ESTATE_UNMANAGED.hostName,
          keyVaultName: SANDBOX_ESTATE_UNMANAGED.vault,
        },
        missing: expect.arrayContaining(["email"]),
      },
    });
    expect(body.estates[0]?.expiringDays).toBe(30);
    expect(leaksIn(world.sim, [reply.text, ...logs])).toEqual([]);
  });

  it("?expiring=8 narrows the set; a bad value is a 400 naming the parameter and the rule", async () => {
    const narrow = await get({ expiring: "8" });
    const body = narrow.body as { estates: { counts: Record<string, number> }[] };
    expect(body.estates[0]?.counts["unmanaged-expiring"]).toBe(0);
    for (const value of ["0", "366", "ten", "1.5", "-3"]) {
      const reply = await get({ expiring: value });
      expect(reply.status, value).toBe(400);
      expect(reply.text).toContain("expiring");
      expect(reply.text).toContain("whole number of days from 1 to 365");
      expect(reply.text).not.toMatch(STACK_FRAME);
    }
  });

  it("behind Easy Auth: a Reader may read it; a caller without a role may not", async () => {
    await configureApp({ ...world.settings, ...EASY_AUTH_ON }, await world.seams());
    expect(
      (await get({}, { "x-ms-client-principal": principalHeader({ roles: [READER] }) })).status,
    ).toBe(200);
    expect(
      (await get({}, { "x-ms-client-principal": principalHeader({ roles: [OPERATOR] }) })).status,
    ).toBe(200);
    expect(
      (await get({}, { "x-ms-client-principal": principalHeader({ roles: [] }) })).status,
    ).toBe(403);
    await configureApp(world.settings, await world.seams());
  });
});
