import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getCertificate } from "../../../functions/getCertificate.js";
import { listCertificates } from "../../../functions/listCertificates.js";
import { getAccountPorts } from "../../../shared/app/services.js";
import { type InventoryUpdate, memoryInventory } from "../../../shared/core/ports/inventory.js";
import type { LedgerOutcome } from "../../../shared/core/ports/ledger.js";
import { READER } from "../../../shared/edge/auth/roles.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import {
  type AppHarness,
  closedPort,
  type Reply,
  STACK_FRAME,
  startHarness,
} from "../../support/app.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { propertyRuns } from "../../support/fastCheck.js";
import { httpRequest } from "../../support/invoke.js";
import { principalHeader } from "../../support/principals.js";

/*
 * GET /api/certificates: the inventory with each certificate's status, paged, over
 * an Azurite of this file's own (the app's default table names, nobody else's rows) with the
 * simulator as the service. Real HttpRequest / InvocationContext objects, the process-wide
 * runtime as the host builds it.
 */

let azurite: AzuriteHandle;
let app: AppHarness;
const at = (ms: number) => new Date(Date.now() + ms);

/** Name, what the storage holds, and the word the list must show for it. */
const SEEDS: {
  name: string;
  expiryIn?: number;
  ledger?: { outcome: LedgerOutcome; requestedAgo: number; detail?: string };
  notLanded?: true;
  status: string;
}[] = [
  { name: "a-expired", expiryIn: -DAY_MS, status: "expired" },
  {
    name: "b-failed",
    expiryIn: 5.5 * DAY_MS,
    ledger: {
      outcome: "failed",
      requestedAgo: HOUR_MS,
      detail: "DNS zone 'contoso-dns' not found",
    },
    status: "failed",
  },
  { name: "c-ok", expiryIn: 60.5 * DAY_MS, status: "ok" },
  {
    name: "d-pending",
    expiryIn: 5.5 * DAY_MS,
    ledger: { outcome: "renewal-scheduled", requestedAgo: 10 * 60_000 },
    status: "pending",
  },
  { name: "e-expiring", expiryIn: 5.5 * DAY_MS, status: "expiring" },
  // Known to the ledger only (a row from before the inventory existed).
  { name: "f-ledger-only", ledger: { outcome: "failed", requestedAgo: HOUR_MS }, status: "failed" },
  { name: "g-unknown", status: "unknown" },
  {
    name: "h-stuck",
    expiryIn: 5.5 * DAY_MS,
    ledger: { outcome: "renewal-scheduled", requestedAgo: 25 * HOUR_MS },
    status: "stuck",
  },
  { name: "i-not-landed", expiryIn: 60.5 * DAY_MS, notLanded: true, status: "not-landed" },
];
const NAMES = SEEDS.map((s) => s.name);

beforeAll(async () => {
  azurite = await startAzurite();
  app = await startHarness({ certificates: [] });
  await app.configure({ AzureWebJobsStorage: azurite.connectionString });
  const runtime = getAccountPorts();
  await runtime.ledger.open();
  const seenAt = new Date();
  const updates: InventoryUpdate[] = [];
  for (const [index, seed] of SEEDS.entries()) {
    const id = 5001 + index;
    const expiry = at(seed.expiryIn ?? 10 * DAY_MS);
    if (seed.name !== "f-ledger-only") {
      updates.push({
        certificateName: seed.name,
        id,
        source: seed.name === "g-unknown" ? "watch" : "due-list",
        ...(seed.expiryIn !== undefined ? { serviceExpiry: expiry } : {}),
        seenAt,
      });
    }
    if (seed.ledger) {
      const requested = at(-seed.ledger.requestedAgo);
      const written = await runtime.ledger.write(
        {
          id,
          certificateName: seed.name,
          expiryAtRequest: expiry,
          firstRequestedAt: requested,
          lastRequestedAt: requested,
          outcome: seed.ledger.outcome,
          attempts: 1,
          detail: seed.ledger.detail,
          reason: "NewRenewal",
        },
        undefined,
      );
      expect(written).not.toBe("conflict");
    }
  }
  await runtime.inventory.upsert(updates);
  await runtime.inventory.recordVerification("i-not-landed", {
    at: at(-HOUR_MS),
    status: "not-landed",
    source: "tls",
    domain: "i.contoso.com",
    servedNotAfter: at(3.5 * DAY_MS),
    daysLeft: 3,
    detail:
      "renewal accepted more than 2 h ago, but the certificate served still expires as before",
  });
}, 60_000);
afterEach(() => {
  expect(app.leaks()).toEqual([]);
  delete process.env.WEBSITE_AUTH_ENABLED;
});
afterAll(async () => {
  await app?.close();
  await azurite?.stop();
});

interface Item {
  certificateName: string;
  status: string;
  why: string;
  ledger: { outcome: string; detail: string | null } | null;
}
interface Page {
  items: Item[];
  next?: string;
  requests7d?: number;
  invalid?: string[];
}

/** GET /api/certificates with `query` as written (raw, so repeats and odd text reach it). */
function list(query = "", headers: Record<string, string> = {}): Promise<Reply> {
  return app.call(
    listCertificates,
    httpRequest({ method: "GET", path: `certificates${query}`, headers }),
  );
}

async function page(query = ""): Promise<Page> {
  const reply = await list(query);
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
  return reply.body as Page;
}

/** Every page from `query` on, following `next`. */
async function allPages(query: string): Promise<Page[]> {
  const pages = [await page(`?${query}`)];
  for (let next = pages[0]?.next; next !== undefined; next = pages.at(-1)?.next) {
    pages.push(await page(`?${query}&continuation=${encodeURIComponent(next)}`));
    expect(pages.length).toBeLessThan(20);
  }
  return pages;
}

const names = (p: Page) => p.items.map((i) => i.certificateName);
/** The token an earlier page would give for resuming after `name`. */
const continuationFor = (name: string) =>
  Buffer.from(JSON.stringify({ v: 1, after: name })).toString("base64url");

describe("GET /api/certificates", () => {
  it("answers every certificate of the inventory and the ledger, in name order, with its word", async () => {
    const body = await page();

    expect(body.next).toBeUndefined();
    expect(body.invalid).toBeUndefined();
    expect(body.items.map((i) => [i.certificateName, i.status])).toEqual(
      SEEDS.map((s) => [s.name, s.status]),
    );
    expect(body.items.find((i) => i.certificateName === "b-failed")).toMatchObject({
      why: "the last renewal request failed (1 attempt): DNS zone 'contoso-dns' not found",
      ledger: { outcome: "failed", detail: "DNS zone 'contoso-dns' not found" },
    });
    // Storage only: listing sends nothing to the service.
    expect(app.sim.requests).toEqual([]);
  });

  it("pages through more than `top` with the continuation, each name once, in order", async () => {
    const pages = await allPages("top=4");

    expect(pages.map((p) => p.items.length)).toEqual([4, 4, 1]);
    expect(pages.flatMap(names)).toEqual(NAMES);
    expect(pages.map((p) => p.next === undefined)).toEqual([false, false, true]);
  });

  it("gives `next` only when more follow: top = what is left has none, one less has one", async () => {
    const exact = await page(`?top=${NAMES.length}`);
    const short = await page(`?top=${NAMES.length - 1}`);
    const rest = await page(`?top=${NAMES.length}&continuation=${short.next ?? ""}`);

    expect(exact.items).toHaveLength(NAMES.length);
    expect(exact.next).toBeUndefined();
    expect(short.items).toHaveLength(NAMES.length - 1);
    expect(short.next).toEqual(expect.any(String));
    expect(names(rest)).toEqual([NAMES.at(-1)]);
    expect(rest.next).toBeUndefined();
  });

  it("takes top=1 and top=200, the ends of the range", async () => {
    expect(names(await page("?top=1"))).toEqual([NAMES[0]]);
    expect(names(await page("?top=200"))).toEqual(NAMES);
  });

  it("filters by status, one word or several, and pages within the filter", async () => {
    const failed = await page("?status=failed");
    const pages = await allPages(`top=2&status=${encodeURIComponent("stuck,failed,expired")}`);

    expect(names(failed)).toEqual(["b-failed", "f-ledger-only"]);
    expect(failed.next).toBeUndefined();
    expect(pages.map(names)).toEqual([
      ["a-expired", "b-failed"],
      ["f-ledger-only", "h-stuck"],
    ]);
    expect(names(await page("?status=ok"))).toEqual(["c-ok"]);
  });

  it("counts the requests sent to the service in the last 7 days", async () => {
    const before = (await page()).requests7d;
    const got = await app.call(
      getCertificate,
      httpRequest({ method: "GET", path: "certificates/c-ok", params: { name: "c-ok" } }),
    );
    const after = (await page()).requests7d;

    // Known to the inventory, unknown to the service: its 404 is a request sent all the same.
    expect(got.status).toBe(200);
    expect(typeof before).toBe("number");
    expect(after).toBe((before ?? 0) + app.sim.requestsFor("get").length);
    expect(app.sim.requestsFor("get")).toHaveLength(1);
  });

  it.each([
    ["?top=0", "top", "must be a whole number from 1 to 200"],
    ["?top=201", "top", "must be a whole number from 1 to 200"],
    ["?top=5.0", "top", "must be a whole number from 1 to 200"],
    ["?top=1e2", "top", "must be a whole number from 1 to 200"],
    ["?top=", "top", "must be a whole number from 1 to 200"],
    ["?top=-1", "top", "must be a whole number from 1 to 200"],
    ["?top=3&top=4", "top", "is given 2 times: give it at most once"],
    [
      "?continuation=not-a-token",
      "continuation",
      "must be the `next` of an earlier answer, unchanged",
    ],
    [
      `?continuation=${Buffer.from('{"v":2,"after":"a"}').toString("base64url")}`,
      "continuation",
      "must be the `next` of an earlier answer, unchanged",
    ],
    ["?status=broken", "status", expect.stringContaining("must be one or more of expired, stuck")],
    ["?status=failed,", "status", expect.stringContaining("separated by commas")],
    ["?status=Failed", "status", expect.stringContaining("must be one or more of")],
    ["?Top=5", "Top", expect.stringContaining("did you mean top?")],
    ["?page=2", "page", expect.stringContaining("it takes top, continuation, status")],
  ])("%s: 400 naming %s", async (query, parameter, message) => {
    const reply = await list(query);

    expect(reply.status).toBe(400);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({
      code: "VALIDATION_FAILED",
      errors: [{ name: parameter, message }],
    });
  });

  it("behind Easy Auth: a caller without a role is refused (403), a Reader is served", async () => {
    process.env.WEBSITE_AUTH_ENABLED = "True";

    const none = await list("", { "x-ms-client-principal": principalHeader({ roles: [] }) });
    const other = await list("", {
      "x-ms-client-principal": principalHeader({ roles: ["other.App.Role"] }),
    });
    const reader = await list("?top=1", {
      "x-ms-client-principal": principalHeader({ roles: [READER] }),
    });
    const operator = await list("?top=1", {
      "x-ms-client-principal": principalHeader({ roles: ["certsched.Operator"] }),
    });

    for (const refused of [none, other]) {
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        code: "FORBIDDEN",
        errors: [{ name: "role", message: `${READER} required` }],
      });
    }
    expect(reader.status).toBe(200);
    expect(operator.status).toBe(200);
  });
});

describe("GET /api/certificates and the Easy Auth gate", () => {
  const noRole = () => principalHeader({ roles: [] });
  it.each([
    // Without Easy Auth anyone can send the header: it proves nothing and is ignored.
    [undefined, noRole, 200],
    [undefined, () => "%%% not base64 %%%", 200],
    ["False", noRole, 200],
    // With it, the platform wrote the header: its roles decide, and a bad one is the caller's.
    ["True", noRole, 403],
    ["true", noRole, 403],
    ["True", () => "%%% not base64 %%%", 400],
    ["True", () => Buffer.from("[1,2]").toString("base64"), 400],
  ])("WEBSITE_AUTH_ENABLED=%j with that principal: %i", async (enabled, header, status) => {
    if (enabled !== undefined) process.env.WEBSITE_AUTH_ENABLED = enabled;

    const reply = await list("?top=1", { "x-ms-client-principal": header() });

    expect(reply.status).toBe(status);
    expect(reply.text).not.toMatch(STACK_FRAME);
    if (status === 400) {
      expect(reply.body).toMatchObject({ errors: [{ name: "x-ms-client-principal" }] });
    }
    if (status === 200) expect(names(reply.body as Page)).toEqual([NAMES[0]]);
  });
});

describe("GET /api/certificates when the storage cannot be read", () => {
  it("answers 503 with Retry-After naming the table, never a 500", async () => {
    const port = await closedPort();
    const down = azurite.connectionString.replace(
      /(TableEndpoint=http:\/\/127\.0\.0\.1:)\d+/,
      `$1${port}`,
    );
    expect(down).not.toBe(azurite.connectionString);
    await app.configure({ AzureWebJobsStorage: down });
    try {
      const reply = await list();

      expect(reply.status).toBe(503);
      expect(reply.headers["retry-after"]).toBe("60");
      expect(reply.body).toMatchObject({
        code: expect.stringMatching(/^(LEDGER|INVENTORY)_UNAVAILABLE$/),
        detail: expect.stringMatching(/cannot read table certsched(renewals|inventory)/),
      });
      expect(reply.text).not.toMatch(STACK_FRAME);
    } finally {
      await app.configure({ AzureWebJobsStorage: azurite.connectionString });
    }
    // And back: the same storage, the same answer.
    expect(names(await page())).toEqual(NAMES);
  });
});

describe("GET /api/certificates with thousands of certificates", () => {
  it("pages through every one of 5,050, each once, in name order (regression: stopped at 5,000)", async () => {
    // More than loadStatus's own bound, names sharing long prefixes; a memory inventory keeps it quick.
    const count = 5_050;
    const many = Array.from({ length: count }, (_, i) => `host-${String(i).padStart(5, "0")}`);
    const inventory = memoryInventory();
    await inventory.upsert(
      many.map((certificateName, i) => ({
        certificateName,
        id: 90_000 + i,
        source: "due-list" as const,
        serviceExpiry: at(30 * DAY_MS),
        seenAt: new Date(),
      })),
    );
    await app.configure({ AzureWebJobsStorage: undefined }, { inventory });
    try {
      const seen: string[] = [];
      let next: string | undefined;
      let pages = 0;
      do {
        const body = await page(
          `?top=200${next === undefined ? "" : `&continuation=${encodeURIComponent(next)}`}`,
        );
        seen.push(...names(body));
        next = body.next;
        pages += 1;
        expect(pages).toBeLessThanOrEqual(Math.ceil(count / 200));
      } while (next !== undefined);

      expect(seen).toEqual(many);
      expect(pages).toBe(Math.ceil(count / 200));
    } finally {
      await app.configure({ AzureWebJobsStorage: azurite.connectionString });
    }
  }, 120_000);
});

describe("GET /api/certificates with any query", () => {
  const key = fc.oneof(
    fc.constantFrom("top", "continuation", "status", "code", "Top", "STATUS", "next", ""),
    fc.string({ maxLength: 12 }),
  );
  const value = fc.oneof(
    fc.integer({ min: -5, max: 300 }).map(String),
    fc.constantFrom("failed", "ok,stuck", "expired,", "unknown", continuationFor("c-ok")),
    fc.string({ maxLength: 40 }),
  );

  it("answers 200 or a 400 naming a parameter it was sent, never anything else", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(key, value), { maxLength: 4 }), async (pairs) => {
        const search = new URLSearchParams(pairs).toString();
        const reply = await list(search === "" ? "" : `?${search}`);
        expect([200, 400]).toContain(reply.status);
        expect(reply.text).not.toMatch(STACK_FRAME);
        if (reply.status === 400) {
          const sent = new Set([...new URLSearchParams(search).keys()]);
          const { errors } = reply.body as { errors: { name: string }[] };
          expect(errors.length).toBeGreaterThan(0);
          for (const e of errors) {
            // Names are quoted back cut and escaped (parseQuery.ts): compare their start.
            const shown = e.name.replace(/(=)?….*$/, "");
            expect(
              [...sent].some((n) => n.startsWith(shown) || e.name === "(unnamed)"),
              e.name,
            ).toBe(true);
          }
        }
      }),
      { numRuns: propertyRuns(60) },
    );
  }, 120_000);
});
