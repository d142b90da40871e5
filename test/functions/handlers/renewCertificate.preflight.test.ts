import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { tableHistory } from "../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../shared/adapters/storage/tableInventory.js";
import type { History } from "../../../shared/core/ports/history.js";
import type { Inventory } from "../../../shared/core/ports/inventory.js";
import { PREFLIGHT_ADVICE } from "../../../shared/core/preflight/advice.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type AppHarness, type Reply, startHarness, uniqueTableName } from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";

/**
 * POST /api/certificates/{name}/renew and the last preflight: a blocked certificate
 * is answered 409 and nothing reaches the service, unless `force=true`. The preflight's result is
 * seeded in the inventory on Azurite, as `certsched preflight` leaves it.
 */

const NAME = "www-contoso-com";
let app: AppHarness;
let inventory: Inventory;
let history: History;

beforeAll(async () => {
  app = await startHarness({
    certificates: [
      { certificateName: NAME, expiryDate: new Date(Date.now() + 40 * DAY_MS) },
      { certificateName: "blog-contoso-com", expiryDate: new Date(Date.now() + 41 * DAY_MS) },
    ],
  });
});
beforeEach(async () => {
  app.sim.reset();
  inventory = tableInventory({
    connectionString: inject("azuriteTableConnectionString"),
    tableName: uniqueTableName("renewpf"),
  });
  const at = new Date(Date.now() - 60_000);
  await inventory.upsert([{ certificateName: NAME, source: "due-list", seenAt: at }]);
  await inventory.recordPreflight(NAME, {
    at,
    status: "will-fail",
    rootDomain: "www.contoso.com",
    checks: [
      { check: "caa", status: "pass", detail: "no CAA record" },
      { check: "app-binding", status: "fail", reason: "hostname-not-bound", detail: "not bound" },
    ],
  });
  history = tableHistory({
    connectionString: inject("azuriteTableConnectionString"),
    tableName: uniqueTableName("renewpfh"),
  });
  await app.configure({}, { inventory, history });
});
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

function renew(name: string, query: Record<string, string> = {}): Promise<Reply> {
  return app.call(
    renewCertificate,
    httpRequest({
      path: `certificates/${encodeURIComponent(name)}/renew`,
      params: { name },
      query,
    }),
  );
}

const BLOCKED = `blocked (preflight: hostname-not-bound): ${PREFLIGHT_ADVICE["hostname-not-bound"]}`;

describe("renewCertificate and a blocking preflight", () => {
  it("answers 409 naming the reason, what to do and force=true; nothing is sent", async () => {
    const reply = await renew(NAME);

    expect(reply.status).toBe(409);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toEqual({
      type: expect.stringMatching(/preflight-blocked$/),
      title: "Blocked by the last preflight",
      status: 409,
      code: "PREFLIGHT_BLOCKED",
      detail: `${NAME}: ${BLOCKED}. Nothing was sent. Fix it and run the preflight again, or renew anyway with force=true.`,
      errors: [
        {
          name: "force",
          message:
            "is not true: the last preflight blocks this renewal (hostname-not-bound); send force=true to renew anyway",
        },
      ],
    });
    // Not even a token: nothing reached the service.
    expect(app.sim.requests).toEqual([]);
    expect(app.logs.map((l) => l.message)).toContainEqual(
      expect.stringContaining(`certsched renewal not sent: ${NAME}: ${BLOCKED}`),
    );
    // The history keeps who asked and why nothing went out.
    const { items } = await history.events({ certificateName: NAME, since: new Date(0) });
    // Both at one instant: their order among themselves is not kept.
    expect(items.map((e) => [e.event, e.by, e.reason, e.detail]).sort()).toEqual([
      ["blocked", undefined, "PreflightBlocked", BLOCKED],
      ["manual-request", "function-key", "ManualRequest", undefined],
    ]);
  });

  it("force=false is the same as none: 409", async () => {
    expect((await renew(NAME, { force: "false" })).status).toBe(409);
    expect(app.sim.renewCallsFor(NAME)).toBe(0);
  });

  it("force=true renews it and says what it was forced past (202)", async () => {
    const reply = await renew(NAME, { force: "true" });

    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({
      status: "scheduled",
      certificateName: NAME,
      forcedPast: "hostname-not-bound",
    });
    expect(app.sim.renewCallsFor(NAME)).toBe(1);
    const { items } = await history.events({ certificateName: NAME, since: new Date(0) });
    expect(items.map((e) => [e.event, e.detail]).sort()).toEqual([
      ["manual-request", "forced past blocked (preflight: hostname-not-bound)"],
      ["renewal-scheduled", expect.any(String)],
    ]);
  });

  it("a certificate without a blocking preflight renews as before, with no forcedPast", async () => {
    const reply = await renew("blog-contoso-com", { force: "true" });
    expect(reply.status).toBe(202);
    expect(reply.body).not.toHaveProperty("forcedPast");
  });

  it("refuses force=yes with 400 naming force, and sends nothing", async () => {
    const reply = await renew(NAME, { force: "yes" });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      errors: [{ name: "force", message: 'must be "true" or "false"' }],
    });
    expect(app.sim.requests).toEqual([]);
  });
});
