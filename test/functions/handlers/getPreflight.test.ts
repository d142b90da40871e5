import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getPreflight } from "../../../functions/getPreflight.js";
import { OPERATOR, READER } from "../../../shared/edge/auth/roles.js";
import { STACK_FRAME } from "../../support/app.js";
import {
  A,
  B,
  type PreflightApp,
  principal,
  startPreflightApp,
  unreadableInventory,
} from "../../support/preflightApp.js";

/*
 * GET /api/preflight over two accounts' inventory tables (Azurite): the stored results as the
 * CLI's JSON writes them, plus `at`; the filters; the 400s naming the parameter; the roles; one
 * account unreadable as `accountErrors`; nothing checked, nothing reaching any service.
 */

let app: PreflightApp;
const savedAuth = process.env.WEBSITE_AUTH_ENABLED;

const caaFails = {
  check: "caa" as const,
  status: "fail" as const,
  reason: "caa-forbids" as const,
  detail: 'CAA at contoso.example: 0 issue "other-ca.example"',
};
const accessPasses = { check: "access" as const, status: "pass" as const, detail: "ARM answered" };

beforeAll(async () => {
  app = await startPreflightApp();
  await app.seed(A, [
    { name: "www", days: 12, stored: { status: "will-fail", checks: [caaFails, accessPasses] } },
    {
      name: "shop",
      days: 40,
      stored: {
        status: "ready",
        checks: [{ check: "caa", status: "pass", detail: "no CAA record" }, accessPasses],
      },
    },
    // Never checked: not listed.
    { name: "new", days: 90 },
  ]);
  await app.seed(B, [
    {
      name: "www",
      days: 20,
      stored: {
        status: "unknown",
        checks: [{ check: "caa", status: "unknown", detail: "DNS timed out after 5 s" }],
      },
    },
  ]);
}, 120_000);
afterAll(async () => {
  await app?.close();
});
afterEach(async () => {
  if (savedAuth === undefined) delete process.env.WEBSITE_AUTH_ENABLED;
  else process.env.WEBSITE_AUTH_ENABLED = savedAuth;
  await app.configure();
  expect(app.leaks()).toEqual([]);
});

const get = (query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  app.call(getPreflight, { method: "GET", path: "preflight", query, headers });

const names = (body: unknown) =>
  (body as { results: { account: string; certificateName: string }[] }).results.map(
    (r) => `${r.account}/${r.certificateName}`,
  );

describe("GET /api/preflight", () => {
  it("answers every account's stored results, as the CLI writes them plus `at`, and the counts", async () => {
    const reply = await get();
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
    const at = app.at.toISOString();
    expect(reply.body).toEqual({
      results: [
        {
          account: A,
          certificateName: "shop",
          rootDomain: "shop.contoso.example",
          status: "ready",
          checks: [
            { check: "caa", status: "pass", reason: null, detail: "no CAA record" },
            { ...accessPasses, reason: null },
          ],
          at,
        },
        {
          account: A,
          certificateName: "www",
          rootDomain: "www.contoso.example",
          status: "will-fail",
          checks: [caaFails, { ...accessPasses, reason: null }],
          at,
        },
        {
          account: B,
          certificateName: "www",
          rootDomain: "www.fabrikam-eu.example",
          status: "unknown",
          checks: [
            { check: "caa", status: "unknown", reason: null, detail: "DNS timed out after 5 s" },
          ],
          at,
        },
      ],
      counts: { ready: 1, "will-fail": 1, unknown: 1 },
    });
    // Reading is reading: nothing reached either account's service.
    for (const { sim } of app.accounts.accounts) expect(sim.requests).toEqual([]);
  });

  it("narrows to an account, a certificate, a status; the counts follow", async () => {
    expect(names((await get({ account: B })).body)).toEqual([`${B}/www`]);
    expect(names((await get({ certificate: "www" })).body)).toEqual([`${A}/www`, `${B}/www`]);
    const failing = await get({ status: "will-fail" });
    expect(names(failing.body)).toEqual([`${A}/www`]);
    expect((failing.body as { counts: unknown }).counts).toEqual({
      ready: 0,
      "will-fail": 1,
      unknown: 0,
    });
    expect(names((await get({ account: A, status: "unknown" })).body)).toEqual([]);
    expect(names((await get({ certificate: "new" })).body)).toEqual([]);
  });

  it.each([
    [{ status: "failing" }, "status", "must be one of ready, will-fail, unknown"],
    [{ certificate: "" }, "certificate", "must name a certificate"],
    [
      { account: "northwind" },
      "account",
      `'northwind' is unknown: the accounts are '${A}', '${B}'`,
    ],
    [{ stauts: "ready" }, "stauts", "is not a query parameter of this function"],
  ])("refuses %j with a 400 naming %s, no stack", async (query, name, message) => {
    const reply = await get(query);
    expect(reply.status).toBe(400);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    const { errors } = reply.body as { errors: { name: string; message: string }[] };
    expect(errors).toEqual([{ name, message: expect.stringContaining(message) }]);
    expect(reply.text).not.toMatch(STACK_FRAME);
  });

  it("behind Easy Auth: a Reader reads; another role is refused 403; the function key passes", async () => {
    process.env.WEBSITE_AUTH_ENABLED = "True";
    expect((await get({}, principal([READER]))).status).toBe(200);
    expect((await get({}, principal([OPERATOR]))).status).toBe(200);
    const refused = await get({}, principal(["other.Role"]));
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("certsched.Reader");
    // No principal: a function-key caller, whose key the host checked (its 401 is the host's).
    expect((await get()).status).toBe(200);
  });

  it("one account's inventory unreadable: the other's results, and accountErrors naming it", async () => {
    // Only B broken: A keeps its own table (the seam is per account).
    await app.configure({
      inventory: (account) =>
        account === B ? unreadableInventory() : app.tableInventoryOf(account),
    });
    const reply = await get();
    expect(reply.status).toBe(200);
    expect(names(reply.body)).toEqual([`${A}/shop`, `${A}/www`]);
    expect((reply.body as { accountErrors: unknown }).accountErrors).toEqual([
      {
        account: B,
        status: 503,
        code: "INVENTORY_UNAVAILABLE",
        title: expect.any(String),
        detail: expect.stringContaining("503 Server Busy"),
      },
    ]);
    expect(app.logs).toContainEqual(expect.stringContaining(`certsched account ${B} failed`));
  });

  it("every account unreadable: the problem the one failure would answer (503), no stack", async () => {
    await app.configure({ inventory: unreadableInventory() });
    const reply = await get();
    expect(reply.status).toBe(503);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.text).not.toMatch(STACK_FRAME);
  });
});
