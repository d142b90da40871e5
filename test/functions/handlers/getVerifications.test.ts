import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getVerifications } from "../../../functions/getVerifications.js";
import { runVerifications } from "../../../functions/runVerifications.js";
import { verifyCertificates } from "../../../functions/verifyCertificates.js";
import {
  type Inventory,
  type InventoryUpdate,
  memoryInventory,
  type VerificationRecord,
} from "../../../shared/core/ports/inventory.js";
import { VERIFICATION_SUMMARY_PREFIX } from "../../../shared/core/verification/verificationSummary.js";
import { OPERATOR, READER } from "../../../shared/edge/auth/roles.js";
import { CertschedError, VerificationFailedError } from "../../../shared/lib/errors.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { type AppHarness, STACK_FRAME, startHarness } from "../../support/app.js";
import { httpRequest, timer } from "../../support/invoke.js";
import { principalHeader } from "../../support/principals.js";
import { startSilentServer } from "../../support/tlsServers.js";

const AT = new Date("2026-03-01T04:00:00.000Z");

async function seeded(): Promise<Inventory> {
  const inventory = memoryInventory();
  const seen = (certificateName: string, extra: Partial<InventoryUpdate> = {}) => ({
    certificateName,
    source: "due-list" as const,
    seenAt: AT,
    ...extra,
  });
  await inventory.upsert([
    seen("www-contoso-com", { id: 1, rootDomain: "contoso.com" }),
    seen("shop-contoso-com", { id: 2 }),
    seen("blog-contoso-com", { id: 3 }),
    seen("new-contoso-com", { id: 4 }),
    seen("watch:legacy.contoso.com:8443", { source: "watch" }),
  ]);
  const v = (
    extra: Partial<VerificationRecord> & Pick<VerificationRecord, "status" | "domain">,
  ) => ({
    at: AT,
    source: "tls" as const,
    detail: `${extra.status} detail`,
    ...extra,
  });
  await inventory.recordVerification(
    "www-contoso-com",
    v({
      status: "ok",
      domain: "www.contoso.com",
      servedNotAfter: new Date(AT.getTime() + 60 * DAY_MS),
      daysLeft: 60,
      issuer: "CN=Test CA",
      thumbprint: "AB12",
    }),
  );
  await inventory.recordVerification(
    "shop-contoso-com",
    v({
      status: "not-landed",
      domain: "shop.contoso.com",
      servedNotAfter: new Date(AT.getTime() + 3 * DAY_MS),
      daysLeft: 3,
    }),
  );
  await inventory.recordVerification(
    "blog-contoso-com",
    v({
      status: "expiring",
      critical: true,
      domain: "blog.contoso.com",
      servedNotAfter: new Date(AT.getTime() + 5 * DAY_MS),
      daysLeft: 5,
    }),
  );
  await inventory.recordVerification(
    "watch:legacy.contoso.com:8443",
    v({
      status: "unreachable",
      domain: "legacy.contoso.com:8443",
      unreachableSince: new Date(AT.getTime() - 2 * HOUR_MS),
    }),
  );
  return inventory;
}

let app: AppHarness;
const savedAuth = process.env.WEBSITE_AUTH_ENABLED;

beforeEach(async () => {
  app = await startHarness({ certificates: [] });
  await app.configure({}, { inventory: await seeded() });
});
afterEach(async () => {
  if (savedAuth === undefined) delete process.env.WEBSITE_AUTH_ENABLED;
  else process.env.WEBSITE_AUTH_ENABLED = savedAuth;
  expect(app.leaks()).toEqual([]);
  await app.close();
});

const principal = (roles: readonly string[]) => ({
  "x-ms-client-principal": principalHeader({ name: "ada@contoso.com", roles }),
});
const get = (headers: Record<string, string> = {}) =>
  app.call(getVerifications, httpRequest({ method: "GET", path: "verifications", headers }));
const post = (headers: Record<string, string> = {}) =>
  app.call(runVerifications, httpRequest({ path: "verifications", headers }));

/**
 * The answer without the additive fields of several accounts: each result's `account` (checked: "default",
 * the one account of a deployment without declared accounts) and the `accounts` lines.
 */
function beforeAccounts(body: unknown): unknown {
  const { accounts, ...rest } = body as { accounts: { name: string }[]; results: object[] };
  expect(accounts.map((a) => a.name)).toEqual(["default"]);
  return {
    ...rest,
    results: rest.results.map((r) => {
      const { account, ...result } = r as { account: string };
      expect(account).toBe("default");
      return result;
    }),
  };
}

describe("GET /api/verifications", () => {
  it("answers the latest verification of each certificate, most urgent first, with counts", async () => {
    const reply = await get();

    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(beforeAccounts(reply.body)).toEqual({
      results: [
        {
          domain: "legacy.contoso.com:8443",
          source: "tls",
          status: "unreachable",
          detail: "unreachable detail",
          verifiedAt: "2026-03-01T04:00:00.000Z",
          unreachableSince: "2026-03-01T02:00:00.000Z",
        },
        {
          certificateName: "shop-contoso-com",
          domain: "shop.contoso.com",
          source: "tls",
          status: "not-landed",
          servedNotAfter: "2026-03-04T04:00:00.000Z",
          daysLeft: 3,
          detail: "not-landed detail",
          verifiedAt: "2026-03-01T04:00:00.000Z",
        },
        {
          certificateName: "blog-contoso-com",
          domain: "blog.contoso.com",
          source: "tls",
          status: "expiring",
          critical: true,
          servedNotAfter: "2026-03-06T04:00:00.000Z",
          daysLeft: 5,
          detail: "expiring detail",
          verifiedAt: "2026-03-01T04:00:00.000Z",
        },
        {
          certificateName: "www-contoso-com",
          domain: "www.contoso.com",
          source: "tls",
          status: "ok",
          servedNotAfter: "2026-04-30T04:00:00.000Z",
          daysLeft: 60,
          issuer: "CN=Test CA",
          thumbprint: "AB12",
          detail: "ok detail",
          verifiedAt: "2026-03-01T04:00:00.000Z",
        },
      ],
      counts: { unreachable: 1, "not-landed": 1, expiring: 1, ok: 1 },
      notVerified: ["new-contoso-com"],
      invalid: [],
    });
    // Reading is reading: nothing was probed and nothing reached the service.
    expect(app.sim.requests).toEqual([]);
  });

  it("answers an empty list without storage (no inventory kept)", async () => {
    await app.configure({}, {});
    const reply = await get();
    expect(reply.status).toBe(200);
    expect(beforeAccounts(reply.body)).toEqual({
      results: [],
      counts: {},
      notVerified: [],
      invalid: [],
    });
  });

  it("answers 503 problem+json, no stack, when the inventory cannot be read", async () => {
    const broken: Inventory = {
      ...memoryInventory(),
      kind: "table",
      list: async () => {
        throw new CertschedError("INVENTORY_UNAVAILABLE", "inventory table: 503 Server Busy", {
          retriable: true,
        });
      },
    };
    await app.configure({}, { inventory: broken });
    const reply = await get();
    expect(reply.status).toBe(503);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.headers["retry-after"]).toBe("60");
    expect(reply.body).toMatchObject({ code: "INVENTORY_UNAVAILABLE" });
    expect(reply.text).not.toMatch(STACK_FRAME);
  });

  it("behind Easy Auth: a Reader reads; a caller without a certsched role gets 403 naming it", async () => {
    process.env.WEBSITE_AUTH_ENABLED = "True";
    expect((await get(principal([READER]))).status).toBe(200);
    const refused = await get(principal(["other.Role"]));
    expect(refused.status).toBe(403);
    expect(refused.headers["content-type"]).toBe("application/problem+json");
    expect(refused.body).toMatchObject({
      code: "FORBIDDEN",
      errors: [{ name: "role", message: `${READER} required` }],
    });
    expect((await get({ "x-ms-client-principal": "not base64!" })).status).toBe(400);
  });
});

describe("POST /api/verifications", () => {
  it("runs a verification now and answers its results and counts (200)", async () => {
    const reply = await post();

    expect(reply.status).toBe(200);
    const body = reply.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ["accounts", "at", "changes", "counts", "failed", "problems", "results"].sort(),
    );
    expect(typeof body.at).toBe("string");
    expect(new Date(body.at as string).toISOString()).toBe(body.at);
    expect(typeof body.failed).toBe("boolean");
    const summary = app.logs.find((l) => l.message.startsWith(VERIFICATION_SUMMARY_PREFIX));
    expect(summary?.functionName).toBe("runVerifications");
    expect(
      JSON.parse(summary?.message.slice(VERIFICATION_SUMMARY_PREFIX.length) ?? "{}"),
    ).toMatchObject({
      trigger: "http",
      scope: "inventory",
    });
  });

  it("is bounded by a deadline: an endpoint that never answers is cut off and reported unreachable", async () => {
    const silent = await startSilentServer();
    try {
      // The probe alone would wait 10 minutes; the run's deadline (here 1 s) stops it first.
      await app.configure(
        {
          CERTSCHED_SWEEP_DEADLINE: "1s",
          CERTSCHED_HTTP_TIMEOUT: "10m",
          CERTSCHED_WATCH: "hang.verify.test",
          CERTSCHED_VERIFY_CONNECT_TO: `hang.verify.test:443:127.0.0.1:${silent.port}`,
        },
        { inventory: memoryInventory() },
      );
      const reply = await post();
      expect(reply.status).toBe(200);
      const body = reply.body as { results: { domain: string; status: string; detail: string }[] };
      expect(body.results).toMatchObject([{ domain: "hang.verify.test", status: "unreachable" }]);
      expect(body.results[0]?.detail).toContain("the probe was cancelled");
    } finally {
      await silent.close();
    }
  });

  it("behind Easy Auth: an Operator runs it; a Reader gets 403 naming certsched.Operator", async () => {
    process.env.WEBSITE_AUTH_ENABLED = "True";
    expect((await post(principal([OPERATOR]))).status).toBe(200);
    const refused = await post(principal([READER]));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: "FORBIDDEN",
      errors: [{ name: "role", message: `${OPERATOR} required` }],
    });
    expect(
      app.logs.some(
        (l) =>
          l.functionName === "runVerifications" &&
          l.message.startsWith(VERIFICATION_SUMMARY_PREFIX),
      ),
    ).toBe(true);
  });
});

describe("verifyCertificates (timer)", () => {
  it("logs one summary line naming its trigger, and a late run says so", async () => {
    await verifyCertificates(timer(true), app.context("verifyCertificates"));
    const lines = app.logs.map((l) => l.message);
    expect(lines).toContain("certsched verification is running late (timer past due)");
    const summaries = lines.filter((l) => l.startsWith(VERIFICATION_SUMMARY_PREFIX));
    expect(summaries).toHaveLength(1);
    expect(
      JSON.parse(summaries[0]?.slice(VERIFICATION_SUMMARY_PREFIX.length) ?? "{}"),
    ).toMatchObject({
      trigger: "timer",
      scope: "inventory",
      failed: false,
      failing: [],
    });
  });
});

describe("VerificationFailedError", () => {
  it("names up to 20 certificates in its message and counts the rest; keeps every problem", () => {
    const problems = Array.from({ length: 23 }, (_, i) => `c${i} (c${i}.test): expired: gone`);
    const error = new VerificationFailedError(problems);
    expect(error.code).toBe("VERIFICATION_FAILED");
    expect(error.problems).toEqual(problems);
    expect(error.message).toMatch(
      /^certsched verification failed: c0 \(c0\.test\): expired: gone; /,
    );
    expect(error.message).toContain("c19 (c19.test)");
    expect(error.message).not.toContain("c20 (c20.test)");
    expect(error.message).toMatch(/; …and 3 more$/);
    expect(new VerificationFailedError(problems.slice(0, 20)).message).not.toContain("more");
  });
});
