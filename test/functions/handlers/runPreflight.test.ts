import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getPreflight } from "../../../functions/getPreflight.js";
import { runPreflight } from "../../../functions/runPreflight.js";
import { PREFLIGHT_CHECKS, PREFLIGHT_STATUSES } from "../../../shared/core/preflight/preflight.js";
import { OPERATOR, READER } from "../../../shared/edge/auth/roles.js";
import { STACK_FRAME } from "../../support/app.js";
import type { RequestInit } from "../../support/invoke.js";
import {
  A,
  B,
  type PreflightApp,
  principal,
  startPreflightApp,
  unreadableInventory,
} from "../../support/preflightApp.js";

/*
 * POST /api/preflight over two accounts' inventory tables (Azurite): it runs now (every
 * certificate, not only those near their window), stores what it found (GET shows it), and
 * answers GET's document; the names it is given, in the query or the body; the 400s naming the
 * field; the Operator role; one account unreadable as `accountErrors`. Its probes decide nothing
 * (undecidedProbes): this suite holds the shape; the statuses, with the real probes over the
 * simulator's DNS, ARM and apps, are preflightCertificates.endToEnd.test.ts's.
 */

let app: PreflightApp;
const savedAuth = process.env.WEBSITE_AUTH_ENABLED;

beforeAll(async () => {
  app = await startPreflightApp();
  // Far from the window (200 days): POST checks them all the same.
  await app.seed(A, [
    { name: "www", days: 200 },
    { name: "shop", days: 10 },
  ]);
  await app.seed(B, [{ name: "www", days: 15 }]);
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

const post = (init: Partial<RequestInit> = {}) =>
  app.call(runPreflight, { method: "POST", path: "preflight", ...init });

type Doc = {
  results: {
    account: string;
    certificateName: string;
    rootDomain: string | null;
    status: string;
    checks: { check: string; status: string; reason?: string; detail: string }[];
    at: string;
  }[];
  counts: Record<string, number>;
  notFound?: string[];
  accountErrors?: { account: string; code: string }[];
};

const names = (body: unknown) =>
  (body as Doc).results.map((r) => `${r.account}/${r.certificateName}`);

describe("POST /api/preflight", () => {
  it("checks every certificate of every account now, stores the results, answers GET's document", async () => {
    const before = Date.now();
    const reply = await post();
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
    const doc = reply.body as Doc;
    expect(names(doc)).toEqual([`${A}/shop`, `${A}/www`, `${B}/www`]);
    for (const r of doc.results) {
      expect(Object.keys(r).sort()).toEqual([
        "account",
        "at",
        "certificateName",
        "checks",
        "rootDomain",
        "status",
      ]);
      expect(r.rootDomain).toBe(`${r.certificateName}.${r.account}.example`);
      expect(PREFLIGHT_STATUSES).toContain(r.status);
      expect(Date.parse(r.at)).toBeGreaterThanOrEqual(before - 1000);
      // An App Service certificate with the http challenge: caa, app-binding, http-challenge, access.
      expect(r.checks.map((c) => c.check)).toEqual([
        "caa",
        "app-binding",
        "http-challenge",
        "access",
      ]);
      for (const c of r.checks) {
        expect(PREFLIGHT_CHECKS).toContain(c.check);
        expect(c.reason === null).toBe(c.status !== "fail");
        expect(c.detail.length).toBeLessThanOrEqual(299);
      }
    }
    expect(Object.values(doc.counts).reduce((a, b) => a + b, 0)).toBe(3);
    expect(Object.keys(doc.counts).sort()).toEqual([...PREFLIGHT_STATUSES].sort());
    expect(doc.accountErrors).toBeUndefined();
    // Stored: GET answers the same results.
    const stored = await app.call(getPreflight, { method: "GET", path: "preflight" });
    expect(stored.body).toEqual({ results: doc.results, counts: doc.counts });
  });

  it("takes names in the query or the body (one or many), and says which no account holds", async () => {
    expect(names((await post({ query: { certificate: "shop" } })).body)).toEqual([`${A}/shop`]);
    const both = await post({ json: { certificate: ["www", "nope"] } });
    expect(names(both.body)).toEqual([`${A}/www`, `${B}/www`]);
    expect((both.body as Doc).notFound).toEqual(["nope"]);
    const one = await post({ query: { account: B }, json: { certificate: "www" } });
    expect(names(one.body)).toEqual([`${B}/www`]);
    expect((one.body as Doc).notFound).toBeUndefined();
    // An empty object names none: every certificate, as without a body.
    expect(names((await post({ json: {} })).body)).toEqual([`${A}/shop`, `${A}/www`, `${B}/www`]);
    // shop is A's only: not "not found", since an account holds it.
    const mixed = await post({ query: { certificate: "shop" }, json: { certificate: "www" } });
    expect(names(mixed.body)).toEqual([`${A}/shop`, `${A}/www`, `${B}/www`]);
    expect((mixed.body as Doc).notFound).toBeUndefined();
  });

  it.each<[string, Partial<RequestInit>, string, string]>([
    ["a number", { json: { certificate: 5 } }, "certificate", "certificate name"],
    ["an empty list", { json: { certificate: [] } }, "certificate", "at least one"],
    ["an empty name", { json: { certificate: [""] } }, "certificate.0", "must name a certificate"],
    ["another field", { json: { certificates: ["www"] } }, "certificates", "it takes certificate"],
    ["an array body", { json: ["www"] }, "(body)", "must be a JSON object"],
    [
      "text that is not JSON",
      { body: "www", headers: { "content-type": "application/json" } },
      "(body)",
      "",
    ],
    ["an empty query name", { query: { certificate: "" } }, "certificate", "must name"],
    ["an unknown parameter", { query: { dryRun: "true" } }, "dryRun", "not a query parameter"],
    ["an unknown account", { query: { account: "northwind" } }, "account", "is unknown"],
  ])(
    "refuses %s with a 400 naming %s, no stack, nothing checked",
    async (_, init, name, message) => {
      const reply = await post(init);
      expect(reply.status).toBe(400);
      expect(reply.headers["content-type"]).toBe("application/problem+json");
      const { errors } = reply.body as { errors: { name: string; message: string }[] };
      expect(errors).toEqual([{ name, message: expect.stringContaining(message) }]);
      expect(reply.text).not.toMatch(STACK_FRAME);
    },
  );

  it("refuses more than 100 names, naming certificate", async () => {
    const many = Array.from({ length: 101 }, (_, i) => `c${i}`);
    const reply = await post({ json: { certificate: many } });
    expect(reply.status).toBe(400);
    expect((reply.body as { errors: { name: string }[] }).errors.map((e) => e.name)).toEqual([
      "certificate",
    ]);
    expect((await post({ json: { certificate: many.slice(0, 100) } })).status).toBe(200);
  });

  it("behind Easy Auth: an Operator runs it; a Reader gets 403 naming certsched.Operator", async () => {
    process.env.WEBSITE_AUTH_ENABLED = "True";
    expect((await post({ headers: principal([OPERATOR]) })).status).toBe(200);
    const refused = await post({ headers: principal([READER]) });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("certsched.Operator");
  });

  it("one account's inventory unreadable: the other is checked, accountErrors names it", async () => {
    await app.configure({
      inventory: (account) =>
        account === A ? unreadableInventory() : app.tableInventoryOf(account),
    });
    const reply = await post();
    expect(reply.status).toBe(200);
    expect(names(reply.body)).toEqual([`${B}/www`]);
    expect((reply.body as Doc).accountErrors).toMatchObject([
      { account: A, code: "INVENTORY_UNAVAILABLE" },
    ]);
  });
});
